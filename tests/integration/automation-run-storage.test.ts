import { describe, expect, it } from "vitest";
import { PutCommand } from "@aws-sdk/lib-dynamodb";
import { db, tableName } from "#core/db/client";
import { AutomationRunEntity } from "#core/db/entities/automations";
import { getItem } from "#core/db/items";
import { keys } from "#core/db/keys";
import { AutomationStep } from "#core/automations/runs/queue";
import type { StoredRun } from "#core/automations/runs/model";
import { publicRun } from "#core/automations/runs/store";
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
    const at = new Date().toISOString();
    const eventId = `manual:${newId()}`;
    // A run as the engine stored it before: routed to its first action, its message not yet sent.
    const run: StoredRun = {
      id: newId(),
      automationId: automation.id,
      automationName: automation.name,
      automationVersion: automation.version,
      organizationId: org.organizationId,
      status: "Pending",
      trigger: { nodeId: "t", type: "Manual", eventId, eventType: "Manual", data: { leadId: lead.id } },
      leadId: lead.id,
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
          output: { eventId, eventType: "Manual", leadId: lead.id },
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
