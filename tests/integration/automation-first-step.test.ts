import { afterEach, describe, expect, it, vi } from "vitest";
import { LEASE_MS } from "#core/automations/runs/engine";
import { runStep } from "#core/automations/runs/step";
import { RunStore } from "#core/automations/runs/store";
import { triggerHandlers } from "#core/automations/runs/triggers";
import { getItem } from "#core/db/items";
import { keys } from "#core/db/keys";
import { LeadCreated } from "#core/leads/queue";
import { envelope } from "#core/queue/messages";
import "#core/automations/runs/queue";
import { chain, createAutomation, listRuns, readyToText } from "#tests/helpers/automations";
import { killedAfterWrite } from "#tests/helpers/crash";
import { createLead, randomNumber } from "#tests/helpers/messaging";
import { applyStackEnv, newOrganization, type TestOrganization } from "#tests/helpers/stack";

/**
 * A run's first step runs in the invocation that creates the run (issue 27): the run is created holding that step's
 * lease with its effect id fixed, so no step message, read or lease write is needed, and a process that stops after the
 * create leaves a run another consumer takes over once the lease ends, sending its message once.
 */
describe("a run's first step runs where the run is created", () => {
  applyStackEnv();
  afterEach(() => vi.useRealTimers());

  /**
   * The `lead.created` trigger of an existing lead, handled in this process, from a source of its own: the automations
   * below take only that source, so the stack's own `lead.created` of the lead (no source) starts nothing.
   */
  const sourceId = "first-step-source";
  const fromSource = { type: "LeadCreated", settings: { sourceIds: [sourceId] } };
  const leadCreated = (org: TestOrganization, leadId: string, eventId: string) => () =>
    triggerHandlers["lead.created"](
      envelope(LeadCreated, org.organizationId, { leadId, sourceId, complianceStatus: null }, eventId),
    );

  const messagesOf = async (org: TestOrganization, leadId: string) => {
    const response = await org.request("POST", "/events/all/my", {
      body: { pageSize: 100, filters: [{ field: "eventType", value: "MessageAccepted" }] },
    });
    expect(response.status).toBe(200);
    return response.body.items.filter((event: any) => event.leadId === leadId);
  };

  it("a process stopped after creating the run leaves it leased; the step is taken over after the lease, with one message under the effect id fixed at creation", async () => {
    const org = await newOrganization();
    await readyToText(org);
    const lead = await createLead(org, randomNumber("212"));
    const automation = await createAutomation(
      org,
      chain(fromSource, [{ id: "hello", type: "SendSms", settings: { body: "Hello once" } }]),
    );
    const trigger = leadCreated(org, lead.id, `lead.created:${lead.id}:crash`);
    // The process dies right after the run's put (not its claim's): before the step's action did anything.
    await killedAfterWrite((input) => JSON.stringify(input).includes('"entity":"AutomationRun"'), trigger);
    const [started] = await listRuns(org, automation.id);
    const stored = (await RunStore.read(org.organizationId, automation.id, started.id))!;
    expect(stored).toMatchObject({ status: "Running", cursorSeq: 1, rev: 0, effectId: expect.any(String) });
    expect(Date.parse(stored.leaseUntil!)).toBeGreaterThan(Date.now());
    expect(stored.steps[1]).toMatchObject({ nodeId: "hello", status: "Running", startedAt: stored.createdAt });
    expect(await messagesOf(org, lead.id)).toHaveLength(0);

    // The trigger redelivered meanwhile finds the run and starts no second one; the run is left to its lease.
    await trigger();
    expect(await listRuns(org, automation.id)).toHaveLength(1);
    expect(await RunStore.read(org.organizationId, automation.id, started.id)).toMatchObject({ rev: 0 });

    // Once the lease has ended, the step message (the redelivered trigger's, or the sweep's) takes the step over.
    vi.useFakeTimers({ toFake: ["Date"], shouldAdvanceTime: true });
    vi.setSystemTime(Date.now() + LEASE_MS + 1_000);
    const step = { automationId: automation.id, runId: started.id, seq: 1, attempt: 0, leadId: lead.id };
    await runStep(org.organizationId, step);
    await runStep(org.organizationId, step);
    const after = (await RunStore.read(org.organizationId, automation.id, started.id))!;
    expect(after.steps[1]!.output).toMatchObject({ messageId: stored.effectId });
    expect(await messagesOf(org, lead.id)).toHaveLength(1);
  });

  it("a first step that waits is stored Waiting with its due entry, from the invocation that created the run", async () => {
    const org = await newOrganization();
    await readyToText(org);
    const lead = await createLead(org, randomNumber("212"));
    const automation = await createAutomation(
      org,
      chain(fromSource, [
        { id: "wait", type: "Wait", settings: { durationSeconds: 3600 } },
        { id: "later", type: "SendSms", settings: { body: "Later" } },
      ]),
    );
    await leadCreated(org, lead.id, `lead.created:${lead.id}:wait`)();
    const [run] = await listRuns(org, automation.id);
    expect(run).toMatchObject({ status: "Waiting", currentNodeId: "wait", waitingUntil: expect.any(String) });
    const stored = (await RunStore.read(org.organizationId, automation.id, run.id))! as unknown as Record<
      string,
      unknown
    >;
    expect(stored.leaseToken).toBeNull();
    // The run's due entry is its wait's end, where the sweep looks for it (the step message cannot wait an hour).
    const item = await getItem(keys.automationRun(org.organizationId, automation.id, run.id), { consistent: true });
    expect(String(item!.gsi3sk)).toMatch(new RegExp(`^${run.waitingUntil}#`));
  });
});
