import { afterEach, describe, expect, it, vi } from "vitest";
import * as Engine from "#core/automations/runs/engine";
import { LEASE_MS } from "#core/automations/runs/engine";
import { FIRST_STEP_LEASE_MARGIN_MS, runStep } from "#core/automations/runs/step";
import { RunStore } from "#core/automations/runs/store";
import { triggerHandlers } from "#core/automations/runs/triggers";
import { getItem } from "#core/db/items";
import { keys } from "#core/db/keys";
import { LeadCreated } from "#core/leads/queue";
import { logger } from "#core/observability/index";
import { envelope } from "#core/queue/messages";
import "#core/automations/runs/queue";
import { chain, createAutomation, listRuns, readyToText } from "#tests/helpers/automations";
import {
  afterCommand,
  faultWhen,
  holdWhen,
  killedAfterWrite,
  SimulatedFault,
  watchPublishes,
} from "#tests/helpers/crash";
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
  /** The step message of a run's first action, as the step consumer gets it. */
  const firstStepOf = (automationId: string, runId: string, leadId: string) => ({
    automationId,
    runId,
    seq: 1,
    attempt: 0,
    leadId,
  });
  const afterLease = () => {
    vi.useFakeTimers({ toFake: ["Date"], shouldAdvanceTime: true });
    vi.setSystemTime(Date.now() + LEASE_MS + 1_000);
  };

  it("a trigger whose one automation's first step fails ends only once the other's first step has run; that step runs once", async () => {
    const org = await newOrganization();
    await readyToText(org);
    const lead = await createLead(org, randomNumber("212"));
    const steady = await createAutomation(
      org,
      chain(fromSource, [{ id: "hello", type: "SendSms", settings: { body: "From the steady one" } }]),
    );
    const failing = await createAutomation(
      org,
      chain(fromSource, [{ id: "hello", type: "SendSms", settings: { body: "From the failing one" } }]),
    );
    const trigger = leadCreated(org, lead.id, `lead.created:${lead.id}:siblings`);
    // The failing automation fails early: its run's create keeps failing. The steady automation's step is still
    // running then, whatever the timing: its outcome's write (rev 0 → 1) is held until the sibling has failed. A
    // trigger that passed the failure on at once (`Promise.all`) would end before that write.
    const failingCreate = faultWhen(`RUN#${failing.id}#`, '"entity":"AutomationRun"');
    const steadyOutcome = holdWhen(failingCreate.faulted, `RUN#${steady.id}#`, '"rev":1');
    let ended: { error: unknown; steadyRecorded: boolean };
    try {
      // Whether the steady step's outcome was written is read the moment the trigger's invocation ends.
      ended = await trigger().then(
        () => expect.fail("The trigger should fail with its failing automation."),
        (error: unknown) => ({ error, steadyRecorded: steadyOutcome.written() }),
      );
    } finally {
      failingCreate();
      steadyOutcome();
    }
    expect(ended.error).toBeInstanceOf(SimulatedFault);
    expect(ended.steadyRecorded).toBe(true);
    const [run] = await listRuns(org, steady.id);
    const stored = (await RunStore.read(org.organizationId, steady.id, run.id))!;
    expect(stored).toMatchObject({ rev: 1, leaseToken: null });
    expect(stored.steps[1]!.output).toMatchObject({ messageId: stored.effectId });
    expect(await listRuns(org, failing.id)).toHaveLength(0);

    // The trigger retried starts the failing automation's run and runs the steady step no second time.
    await trigger();
    expect(await RunStore.read(org.organizationId, steady.id, run.id)).toMatchObject({ rev: 1 });
    expect(await listRuns(org, failing.id)).toHaveLength(1);
    // One message each: the steady one's, from the first attempt, and the failing one's, from the retry.
    expect(await messagesOf(org, lead.id)).toHaveLength(2);
  });

  it("a trigger whose two automations both fail to start logs each failure with its automation, and fails with the first", async () => {
    const org = await newOrganization();
    await readyToText(org);
    const lead = await createLead(org, randomNumber("212"));
    const automations = [
      await createAutomation(org, chain(fromSource, [{ id: "a", type: "SendSms", settings: { body: "One" } }])),
      await createAutomation(org, chain(fromSource, [{ id: "b", type: "SendSms", settings: { body: "Two" } }])),
    ];
    const faults = automations.map((automation) => faultWhen(`RUN#${automation.id}#`, '"entity":"AutomationRun"'));
    const logged = vi.spyOn(logger, "error").mockImplementation(() => undefined);
    try {
      await expect(leadCreated(org, lead.id, `lead.created:${lead.id}:both-fail`)()).rejects.toBeInstanceOf(
        SimulatedFault,
      );
      const failed = logged.mock.calls
        .filter(([message]) => message === "an automation's run did not start")
        .map(([, details]) => details as unknown as { automationId: string; organizationId: string; error: unknown });
      expect(failed.map((details) => details.automationId).sort()).toEqual(
        automations.map((automation) => automation.id).sort(),
      );
      for (const details of failed) {
        expect(details.organizationId).toBe(org.organizationId);
        expect(details.error).toBeInstanceOf(SimulatedFault);
      }
    } finally {
      logged.mockRestore();
      for (const fault of faults) fault();
    }
  });

  it("a first step with less of its lease left than a whole invocation is not run inline: its step message is queued for the lease's end, and sends once", async () => {
    const org = await newOrganization();
    await readyToText(org);
    const lead = await createLead(org, randomNumber("212"));
    const automation = await createAutomation(
      org,
      chain(fromSource, [{ id: "hello", type: "SendSms", settings: { body: "Hello after the lease" } }]),
    );
    const { published, stop } = await watchPublishes();
    vi.useFakeTimers({ toFake: ["Date"], shouldAdvanceTime: true });
    // The invocation stalls right after the run's create (frozen, or slow): by the time the first step would run, less
    // of the lease is left than an invocation may last, so another consumer could take the step over mid-execution.
    const stall = LEASE_MS - FIRST_STEP_LEASE_MARGIN_MS + 15_000;
    const stalled = afterCommand(
      () => vi.setSystemTime(Date.now() + stall),
      `RUN#${automation.id}#`,
      '"entity":"AutomationRun"',
    );
    try {
      await leadCreated(org, lead.id, `lead.created:${lead.id}:margin`)();
    } finally {
      stalled();
      stop();
    }
    const [started] = await listRuns(org, automation.id);
    const stored = (await RunStore.read(org.organizationId, automation.id, started.id))!;
    // Not executed: nothing recorded since the create, no message under the effect id fixed there.
    expect(stored).toMatchObject({ status: "Running", rev: 0, effectId: expect.any(String) });
    expect(await messagesOf(org, lead.id)).toHaveLength(0);
    // Queued instead, delayed until the lease has ended (an earlier delivery would find the lease held and drop it).
    const queued = published.filter(
      ({ envelope }) => envelope.type === "automation.step" && envelope.data.runId === started.id,
    );
    expect(queued).toHaveLength(1);
    const [{ envelope, delaySeconds, sentAt }] = queued as [(typeof queued)[number]];
    expect(sentAt + delaySeconds * 1000).toBeGreaterThanOrEqual(Date.parse(stored.leaseUntil!));

    // Delivered once the lease has ended, that step message runs the step: one message, under the effect id.
    vi.setSystemTime(sentAt + delaySeconds * 1000);
    await runStep(org.organizationId, envelope.data as Parameters<typeof runStep>[1]);
    const after = (await RunStore.read(org.organizationId, automation.id, started.id))!;
    expect(after.steps[1]!.output).toMatchObject({ messageId: stored.effectId });
    expect(await messagesOf(org, lead.id)).toHaveLength(1);
  });

  it("a process killed after a first step's message was made and before its outcome was written: the takeover observes that message, one in all", async () => {
    const org = await newOrganization();
    await readyToText(org);
    const lead = await createLead(org, randomNumber("212"));
    const automation = await createAutomation(
      org,
      chain(fromSource, [{ id: "hello", type: "SendSms", settings: { body: "Hello, killed after" } }]),
    );
    await killedAfterWrite(
      (input) => JSON.stringify(input).includes('"entity":"Message"'),
      leadCreated(org, lead.id, `lead.created:${lead.id}:effect`),
    );
    const [started] = await listRuns(org, automation.id);
    const stored = (await RunStore.read(org.organizationId, automation.id, started.id))!;
    expect(stored).toMatchObject({ rev: 0, status: "Running" });
    expect(await messagesOf(org, lead.id)).toHaveLength(1);

    afterLease();
    await runStep(org.organizationId, firstStepOf(automation.id, started.id, lead.id));
    const after = (await RunStore.read(org.organizationId, automation.id, started.id))!;
    expect(after.steps[1]!.output).toMatchObject({ messageId: stored.effectId });
    expect(await messagesOf(org, lead.id)).toHaveLength(1);
  });

  it("an inline first step that throws fails the trigger; the retried trigger queues the step, and after its attempts the run ends Failed", async () => {
    const org = await newOrganization();
    await readyToText(org);
    const lead = await createLead(org, randomNumber("212"));
    const automation = await createAutomation(
      org,
      chain(fromSource, [{ id: "hello", type: "SendSms", settings: { body: "Never recorded" } }]),
    );
    const trigger = leadCreated(org, lead.id, `lead.created:${lead.id}:throws`);
    // Every write of the run past its create keeps failing: the inline step's outcome, the queued step's lease.
    const restore = faultWhen(`RUN#${automation.id}#`, '"rev":1');
    try {
      await expect(trigger()).rejects.toBeInstanceOf(SimulatedFault);
      await trigger(); // the retry: the run exists unchanged since its create, its step is queued for the lease's end
      const [started] = await listRuns(org, automation.id);
      expect(await RunStore.read(org.organizationId, automation.id, started.id)).toMatchObject({ rev: 0 });
      afterLease();
      const step = firstStepOf(automation.id, started.id, lead.id);
      for (let attempt = 0; attempt < 2; attempt++)
        await expect(runStep(org.organizationId, step)).rejects.toBeInstanceOf(SimulatedFault);
      restore();
      // The step message's attempts are spent: its poison hook.
      await Engine.abandon(org.organizationId, step, new Error("The write keeps failing."));
      const ended = (await RunStore.read(org.organizationId, automation.id, started.id))!;
      expect(ended).toMatchObject({ status: "Failed" });
      expect(ended.steps[1]).toMatchObject({ status: "Failed" });
    } finally {
      restore();
    }
  });
});
