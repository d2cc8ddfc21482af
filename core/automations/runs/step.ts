import { executeAction, type ActionOutcome } from "#core/automations/runs/actions";
import {
  applyRoute,
  canceledRun,
  environmentOf,
  evaluationContext,
  finish,
  ignoreStale,
  leased,
  observed,
  save,
  sendStep,
  type Environment,
  type FirstStep,
} from "#core/automations/runs/engine";
import type { Automation } from "#core/automations/index";
import type { RunStep, StoredRun } from "#core/automations/runs/model";
import { routeFrom, type Definition } from "#core/automations/runs/route";
import { isFinal, runWithAutomationRead, StaleRunError, Versions } from "#core/automations/runs/store";
import type { LeadConsentState } from "#core/consent/index";
import { nothingToRead, readAlone, readTogether, type PlannedRead } from "#core/db/items";
import { consentStateOf } from "#core/leads/consent";
import { findMessageRead } from "#core/messaging/message-reads";
import { sendRead, type PreparedSend } from "#core/messaging/send-read";
import type { Message } from "#core/messaging/model";
import * as LeadReads from "#core/leads/reads";
import { toLead } from "#core/leads/reads";
import type { Lead } from "#core/leads/schemas";
import { queues } from "#stacks/definitions";

// Executes steps: the step consumer's (`runStep`) and the trigger fan-out's first step of a run it creates
// (`runFirstStep`), both in the automation-runs consumer. The run routes (a manual run, a retry, a cancel) never
// execute an action, so they do not bundle this module's action executor (messages, calls, suppressions, outbound HTTP).

/** Executes the step a queue message names, if it is still the run's current step and nobody holds it. */
export async function runStep(
  organizationId: string,
  data: {
    automationId: string;
    runId: string;
    seq: number;
    attempt: number;
    leadId?: string | undefined;
    messageId?: string | undefined;
  },
  options: { random?: () => number } = {},
): Promise<void> {
  // The lead the message names (the run's, which never changes) is read with the run: one consistent BatchGetItem;
  // so is the message of a send looked at again (issue 27, eighth pass).
  const [{ run: current, automation }, leadItem, messageSeen] = await readTogether([
    runWithAutomationRead(organizationId, data.automationId, data.runId),
    data.leadId ? LeadReads.itemRead(organizationId, data.leadId) : nothingToRead,
    data.messageId ? findMessageRead(organizationId, data.messageId) : nothingToRead,
  ]);
  if (!current || isFinal(current) || current.cursorSeq !== data.seq || current.cursorAttempt !== data.attempt) return;
  const now = Date.now();
  const at = new Date(now).toISOString();
  if (current.leaseUntil && Date.parse(current.leaseUntil) > now) return;
  if (!automation || (!automation.enabled && current.trigger.eventType !== "Manual")) {
    await save(
      canceledRun(current, automation ? "The automation was disabled." : "The automation was deleted.", at),
      current,
    ).catch(ignoreStale);
    return;
  }
  if (current.status === "Waiting" && current.waitingUntil && Date.parse(current.waitingUntil) > now + 1_000) {
    await sendStep(current, Date.parse(current.waitingUntil) - now);
    return;
  }
  // A step looked at again (a send observed until its message is handed off: the message exists, so looking creates
  // nothing) takes no lease: two copies at once only read, and the rev condition of the outcome's write keeps one.
  const observing = observed(current);
  let run: StoredRun;
  try {
    run = observing ? current : await save(leased(current, now), current);
  } catch (error) {
    return ignoreStale(error);
  }
  // A send looked at again observes its message: the lead is read only if what follows needs it (issue 27, h26).
  const read = data.leadId && run.leadId === data.leadId ? { item: leadItem } : undefined;
  await execute(
    {
      run,
      automation,
      now,
      observing,
      // The claim's write fixed the id (the run's rev condition held, so no other execution has it).
      effectIsNew: !observing && current.effectId === null,
      ...(read ? { lead: read } : {}),
      // The message read with the run, when it is the one this step observes (its effect id).
      ...(observing && data.messageId === run.effectId ? { message: { found: messageSeen } } : {}),
    },
    options.random,
  );
}

/**
 * The first step of a run `Engine.start` just created holding its lease (issue 27): executed in the invocation that
 * created the run, from the automation it was started from, with no step message, read or lease write of its own. The
 * create fixed the effect id (its put was conditional on the run being new, so no other execution has it). A process
 * that stops here leaves the run to its lease: the redelivered trigger, or the sweep, sends the step once it ends.
 */
export const runFirstStep: FirstStep = async (run, automation, options) => {
  const now = Date.now();
  const remaining = run.leaseUntil ? Date.parse(run.leaseUntil) - now : 0;
  // Too little of the lease left for a whole execution (the invocation was frozen, or slow, between the run's
  // `leased` and here): another consumer may take the step over while this one still runs, so it is queued for the
  // lease's end instead, and whoever takes it there runs it under a lease of its own.
  if (remaining < FIRST_STEP_LEASE_MARGIN_MS) return sendStep(run, remaining);
  const startedFrom = options.lead?.id === run.leadId ? options.lead : undefined;
  await execute(
    { run, automation, now, observing: false, effectIsNew: true, ...(startedFrom ? { startedFrom } : {}) },
    options.random,
  );
};

/**
 * The lease a run's first step must still have for it to run inline: the consumer's whole timeout. An invocation
 * cannot outlast it, so a step begun with that much left ends (or its process dies) before the lease does; a fresh
 * lease (`LEASE_MS`, that timeout plus 30 s) leaves 30 s for the start's reads and writes before it.
 */
export const FIRST_STEP_LEASE_MARGIN_MS = queues.automationRuns.consumerTimeoutSeconds * 1000;

/** A step its execution holds (or observes without a lease), with what was read with its run. */
interface HeldStep {
  run: StoredRun;
  automation: Automation;
  now: number;
  observing: boolean;
  effectIsNew: boolean;
  /** The lead's item, when read with the run (else the step reads it). */
  lead?: { item: Record<string, unknown> | undefined };
  /** The message of a send looked at again, when read with the run. */
  message?: { found: Message | undefined };
  /**
   * The lead the run was started from by this same invocation (a first step), a moment before: the number a send's
   * first read is planned for, never what the step renders or decides on (it reads the lead).
   */
  startedFrom?: Lead;
}

/** Runs a held step's action, then records the outcome and routes on in one conditional write, then sends the next step. */
async function execute(held: HeldStep, random?: () => number): Promise<void> {
  const { run, automation, now, observing } = held;
  const organizationId = run.organizationId;
  const stepIndex = run.cursorSeq;
  const step = run.steps[stepIndex]!;
  const definition = await Versions.read(organizationId, run.automationId, run.automationVersion, automation);
  const action = definition?.actions.find((candidate) => candidate.id === step.nodeId);
  // A send's first read (its wallet, the number's conversation pointer, the settings) joins the step's consistent read
  // of the lead, planned for the number of the lead the run was started from (issue 27, tenth pass).
  const send = !observing && !held.lead && held.startedFrom ? sendReadOf(run, action, held.startedFrom) : undefined;
  const { consent, prepared, ...environment } = await stepEnvironmentOf(
    organizationId,
    observing ? null : run.leadId,
    held.lead,
    send,
  );
  const readLead = async () => (environment.lead = (await stepEnvironmentOf(organizationId, run.leadId)).lead);
  const outcome: ActionOutcome = action
    ? await executeAction({
        run,
        step,
        action,
        lead: environment.lead,
        organization: environment.organization,
        now,
        effectId: run.effectId!,
        effectIsNew: held.effectIsNew,
        ...(held.message ? { message: held.message } : {}),
        ...(consent ? { consent } : {}),
        ...(prepared ? { prepared } : {}),
        ...(observing && run.leadId ? { readLead } : {}),
      })
    : { kind: "failed", error: `Version ${run.automationVersion} of the automation has no action ${step.nodeId}.` };
  // Routing on from the step may weigh the lead (condition groups): read it now if it was not.
  const routesOn = (outcome.kind === "succeeded" || outcome.kind === "skipped") && definition !== undefined;
  if (observing && run.leadId && !environment.lead && routesOn && leavesNode(definition, step.nodeId)) await readLead();
  const next = await afterOutcome(run, stepIndex, outcome, definition, environment, random);
  const saved = await save(next.run, run).catch((error: unknown) =>
    error instanceof StaleRunError ? undefined : Promise.reject(error),
  );
  if (saved) await sendStep(saved, next.delayMs);
}

/**
 * A step's environment, its lead read as the whole item: a send's consent state comes from that same consistent read
 * (issue 27: the send read the lead's consent attributes again a moment later), and so does a send's first read when
 * `send` plans it.
 */
async function stepEnvironmentOf(
  organizationId: string,
  leadId: string | null,
  read?: { item: Record<string, unknown> | undefined },
  send?: PlannedRead<PreparedSend>,
): Promise<Environment & { consent?: LeadConsentState; prepared?: PreparedSend }> {
  const leadRead = async (id: string): Promise<[Record<string, unknown> | undefined, PreparedSend | undefined]> => {
    if (read) return [read.item, undefined];
    if (send) return readTogether([LeadReads.itemRead(organizationId, id), send]);
    return [await readAlone(LeadReads.itemRead(organizationId, id), { consistent: true }), undefined];
  };
  const [[item, prepared], { organization }] = await Promise.all([
    leadId ? leadRead(leadId) : [undefined, undefined],
    environmentOf(organizationId, null),
  ]);
  if (!item) return { lead: undefined, organization };
  return { lead: toLead(item), organization, consent: consentStateOf(item), ...(prepared ? { prepared } : {}) };
}

/** A send step's first read, for the run's lead's number as `lead` (the one the run was started from) had it; else none. */
function sendReadOf(
  run: StoredRun,
  action: Definition["actions"][number] | undefined,
  lead: Lead,
): PlannedRead<PreparedSend> | undefined {
  const phone = lead.contact.phone?.number;
  const sends = action?.type === "SendSms" || action?.type === "SendMms";
  return sends && phone ? sendRead(run.organizationId, lead.id, phone) : undefined;
}

/** Whether any connection leaves the node (else the run ends there, and routing reads nothing). */
function leavesNode(definition: Definition, nodeId: string): boolean {
  return definition.connections.some((connection) => connection.sourceNodeId === nodeId);
}

/** The run after an action's outcome, and the delay of the next message. */
async function afterOutcome(
  run: StoredRun,
  index: number,
  outcome: ActionOutcome,
  definition: Definition | undefined,
  environment: Environment,
  random?: () => number,
): Promise<{ run: StoredRun; delayMs: number }> {
  const now = Date.now();
  const at = new Date(now).toISOString();
  const step = run.steps[index]!;
  const timing = { finishedAt: at, durationMs: Math.max(0, now - Date.parse(step.startedAt ?? at)) };
  const update = (changes: Partial<RunStep>) =>
    run.steps.map((entry, position) => (position === index ? { ...entry, ...changes } : entry));
  const released = { leaseToken: null, leaseUntil: null, modifiedAt: at };
  const input = "input" in outcome && outcome.input ? outcome.input : step.input;
  switch (outcome.kind) {
    case "succeeded":
    case "stop":
    case "skipped": {
      // The run goes on past a skipped action (a send its consent policy forbids) as past a done one; the step keeps why.
      const skipped = outcome.kind === "skipped" ? outcome.reason : null;
      const steps = update({
        status: skipped ? "Skipped" : "Succeeded",
        attempts: step.attempts + 1,
        input,
        output: outcome.output,
        error: skipped,
        ...timing,
      });
      const done: StoredRun = { ...run, ...released, steps, path: [...run.path, step.nodeId] };
      if (outcome.kind === "stop" || !definition) return { run: finish(done, "Succeeded", null, at), delayMs: 0 };
      const route = await routeFrom(definition, step.nodeId, evaluationContext(run, environment, now), random);
      return { run: applyRoute(done, route, at), delayMs: 0 };
    }
    case "failed": {
      const steps = update({
        status: outcome.status ?? "Failed",
        attempts: step.attempts + 1,
        input,
        output: outcome.output ?? step.output,
        error: outcome.error,
        ...timing,
      });
      return {
        run: finish({ ...run, ...released, steps, path: [...run.path, step.nodeId] }, "Failed", outcome.error, at),
        delayMs: 0,
      };
    }
    case "retry": {
      const steps = update({ attempts: step.attempts + 1, input, output: outcome.output, error: outcome.error });
      const dueAt = new Date(now + outcome.delayMs + 60_000).toISOString();
      return {
        run: { ...run, ...released, steps, cursorAttempt: run.cursorAttempt + 1, dueAt },
        delayMs: outcome.delayMs,
      };
    }
    case "observe": {
      const steps = update({ input, output: outcome.output });
      const dueAt = new Date(now + outcome.delayMs + 60_000).toISOString();
      return { run: { ...run, ...released, steps, dueAt }, delayMs: outcome.delayMs };
    }
    case "wait": {
      const steps = update({ status: "Waiting", input, output: outcome.output });
      return {
        run: { ...run, ...released, steps, status: "Waiting", waitingUntil: outcome.until, dueAt: null },
        delayMs: Date.parse(outcome.until) - now,
      };
    }
  }
}
