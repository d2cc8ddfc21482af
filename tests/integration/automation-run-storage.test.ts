import { describe, expect, it } from "vitest";
import { PutCommand } from "@aws-sdk/lib-dynamodb";
import { db, tableName } from "#core/db/client";
import { AutomationRunEntity } from "#core/db/entities/automations";
import { getItem } from "#core/db/items";
import { keys } from "#core/db/keys";
import { AutomationStep } from "#core/automations/runs/queue";
import * as AutomationRuns from "#core/automations/runs/index";
import type { StoredRun } from "#core/automations/runs/model";
import { publicRun } from "#core/automations/runs/store";
import { sweepAutomations } from "#core/automations/runs/schedule";
import { packedRunItem } from "#core/db/entities/packed-runs";
import { DUE_WORK_SHARDS } from "#core/db/due";
import { publish } from "#core/queue/messages";
import { newId } from "#core/shared/ids";
import { chain, createAutomation, readyToText, smsStep, waitForRun } from "#tests/helpers/automations";
import { createLead, randomNumber, waitForMessage } from "#tests/helpers/messaging";
import { applyStackEnv, newOrganization } from "#tests/helpers/stack";

/**
 * Runs are stored packed (issue 27: core/automations/runs/store.ts); a run stored before, its fields as attributes of
 * their own, reads the same and runs on, and is packed by its next write.
 */
describe("a run stored before runs were packed", () => {
  applyStackEnv();

  it("reads as it was stored, runs its step, and is stored packed from then on", async () => {
    const org = await newOrganization();
    await readyToText(org);
    const lead = await createLead(org, randomNumber("212"));
    const automation = await createAutomation(
      org,
      chain({ type: "Manual" }, [{ id: "hello", type: "SendSms", settings: { body: "Hello from before" } }]),
    );
    const run = routedRun(org.organizationId, automation, lead.id);
    const due = AutomationRunEntity.entryIn("due", { ...run, dueAt: new Date(Date.now() + 120_000).toISOString() });
    await db().send(new PutCommand({ TableName: tableName(), ...AutomationRunEntity.put(run, { extra: due }) }));

    const path = `/automations/${automation.id}/runs/${run.id}`;
    const before = await org.request("GET", path);
    expect(before.status).toBe(200);
    const shown = publicRun(run);
    expect(before.body).toEqual(shown);

    await publish(AutomationStep, org.organizationId, {
      automationId: automation.id,
      runId: run.id,
      seq: 1,
      attempt: 0,
      leadId: lead.id,
    });
    const finished = await waitForRun(org, automation.id, run.id);
    expect(finished).toMatchObject({ status: "Succeeded", path: ["t", "hello"], steps: [shown.steps[0], {}] });
    expect((await waitForMessage(org, smsStep(finished).output.messageId)).body).toBe("Hello from before");
    const stored = await getItem(keys.automationRun(org.organizationId, automation.id, run.id), { consistent: true });
    expect(stored).toMatchObject({ id: run.id, status: "Succeeded" });
    expect(stored!.packed).toBeInstanceOf(Uint8Array);
    expect(stored!.steps).toBeUndefined();
    expect((await org.request("GET", path)).body).toEqual(finished);
  });
});

describe("a run that cannot be read", () => {
  applyStackEnv();

  /** The run's item, packed, with its due entry at `dueAt` in due shard `shard` (so the sweep meets it in order). */
  const storedItem = (run: StoredRun, dueAt: string, shard: number) => {
    const put = AutomationRunEntity.put(run, { extra: AutomationRunEntity.entryIn("due", { ...run, dueAt, shard }) });
    return { ...put, Item: packedRunItem(put.Item, run) };
  };

  it("is logged and passed over by the sweep, which resumes another organization's due run after it; GET answers a named 500", async () => {
    const [broken, healthy] = [await newOrganization(), await newOrganization()];
    await readyToText(healthy);
    const definition = chain({ type: "Manual" }, [{ id: "hello", type: "SendSms", settings: { body: "Swept" } }]);
    const [brokenAutomation, healthyAutomation] = [
      await createAutomation(broken, definition),
      await createAutomation(healthy, definition),
    ];
    const lead = await createLead(healthy, randomNumber("212"));
    const dueAt = new Date(Date.now() - 60_000).toISOString();
    // Corruption simulated: bytes in the packed format that do not inflate. Its due entry is in the first shard the
    // sweep reads, the healthy run's in the last, so the sweep meets the corrupt one first.
    const corrupt = routedRun(broken.organizationId, brokenAutomation, null);
    const corruptPut = storedItem(corrupt, dueAt, 0);
    corruptPut.Item.packed = Uint8Array.of(1, 0xde, 0xad, 0xbe, 0xef);
    const run = routedRun(healthy.organizationId, healthyAutomation, lead.id);
    for (const put of [corruptPut, storedItem(run, dueAt, DUE_WORK_SHARDS - 1)])
      await db().send(new PutCommand({ TableName: tableName(), ...put }));

    const result = await sweepAutomations();
    expect(result.runsUnreadable).toBeGreaterThanOrEqual(1);
    const finished = await waitForRun(healthy, healthyAutomation.id, run.id);
    expect(finished).toMatchObject({ status: "Succeeded", path: ["t", "hello"] });

    const answer = await broken.request("GET", `/automations/${brokenAutomation.id}/runs/${corrupt.id}`);
    expect(answer.status).toBe(500);
    expect(answer.headers.get("content-type")).toMatch(/^application\/problem\+json/);
    expect(answer.body.detail).toBe(
      `The stored automation run ${brokenAutomation.id}/${corrupt.id} cannot be read: its packed fields do not inflate to a run.`,
    );
    // Ours, like any 500: the id to quote matches the log line.
    expect(answer.body.correlationId).toEqual(expect.any(String));
  });

  it("is left out of its automation's run list and of the runs' health, which answer the others", async () => {
    const org = await newOrganization();
    const definition = chain({ type: "Manual" }, [{ id: "hello", type: "SendSms", settings: { body: "Listed" } }]);
    const automation = await createAutomation(org, definition);
    // Stored without a due entry: nothing but these reads meets them.
    const readablePut = (run: StoredRun) => {
      const put = AutomationRunEntity.put(run);
      return { ...put, Item: packedRunItem(put.Item, run) };
    };
    const [readable, corrupt] = [
      routedRun(org.organizationId, automation, null),
      routedRun(org.organizationId, automation, null),
    ];
    const corruptPut = readablePut(corrupt);
    corruptPut.Item.packed = Uint8Array.of(1, 0xde, 0xad, 0xbe, 0xef);
    for (const put of [readablePut(readable), corruptPut])
      await db().send(new PutCommand({ TableName: tableName(), ...put }));

    const listed = await org.request("POST", `/automations/${automation.id}/runs/all/my`, { body: { pageSize: 10 } });
    expect(listed.status).toBe(200);
    expect(listed.body.items.map((run: { id: string }) => run.id)).toEqual([readable.id]);
    // Filtered (the list's key-ordered scan matches each item it reads): the same.
    const filtered = await org.request("POST", `/automations/${automation.id}/runs/all/my`, {
      body: { pageSize: 10, filters: [{ field: "status", value: "Pending" }] },
    });
    expect(filtered.status).toBe(200);
    expect(filtered.body.items.map((run: { id: string }) => run.id)).toEqual([readable.id]);

    // The runs' own health (the report's comes from its rollups, which read no run): the readable one alone.
    const health = await AutomationRuns.health(org.organizationId, {
      startAt: new Date(Date.now() - 3_600_000).toISOString(),
      endAt: new Date(Date.now() + 60_000).toISOString(),
    });
    expect(health).toMatchObject({ automationCount: 1, executions: 1, failureCount: 0 });
    // Read by its id, it still answers the named 500.
    expect((await org.request("GET", `/automations/${automation.id}/runs/${corrupt.id}`)).status).toBe(500);
  });
});

/** A run as the engine stored it before runs were packed: routed to its first action, its message not yet sent. */
function routedRun(
  organizationId: string,
  automation: { id: string; name?: unknown; version: number },
  leadId: string | null,
): StoredRun {
  const at = new Date().toISOString();
  const eventId = `manual:${newId()}`;
  return {
    id: newId(),
    automationId: automation.id,
    automationName: String(automation.name),
    automationVersion: automation.version,
    organizationId,
    status: "Pending",
    trigger: { nodeId: "t", type: "Manual", eventId, eventType: "Manual", data: { leadId } },
    leadId,
    path: ["t"],
    currentNodeId: "hello",
    waitingUntil: null,
    steps: [
      {
        seq: 0,
        nodeId: "t",
        kind: "Trigger",
        type: "Manual",
        status: "Succeeded",
        attempts: 1,
        input: null,
        output: { eventId, eventType: "Manual", leadId },
        error: null,
        startedAt: at,
        finishedAt: at,
        durationMs: 0,
      },
      {
        seq: 1,
        nodeId: "hello",
        kind: "Action",
        type: "SendSms",
        status: "Pending",
        attempts: 0,
        input: null,
        output: null,
        error: null,
        startedAt: null,
        finishedAt: null,
        durationMs: null,
      },
    ],
    error: null,
    retryCount: 0,
    createdAt: at,
    finishedAt: null,
    modifiedAt: at,
    cursorSeq: 1,
    cursorAttempt: 0,
    effectId: null,
    leaseToken: null,
    leaseUntil: null,
    rev: 0,
    dueAt: null,
  };
}
