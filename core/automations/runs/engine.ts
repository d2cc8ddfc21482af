/**
 * The run engine (docs/automations.md "Execution"). A run is one stored item; each step is one queue message
 * (`automation.step`), except a triggered run's first, run by the invocation that created the run (created holding
 * that step's lease: `start`'s `firstStep`). Processing a step: read the run (with its automation), take the
 * step's lease with a conditional write (not for a send observed again: core/automations/runs/step.ts), run the action,
 * then record the outcome and route to the next action in one more conditional write, and only then send the next
 * message. Waits and retries are delayed messages (SQS, up to 15 minutes) backed by the due index, which the sweep
 * reads for longer waits and for steps whose message was lost.
 */
import { AutomationStep } from "#core/automations/runs/queue";
import { endEvent } from "#core/automations/runs/end-event";
import { hasInboundSince } from "#core/messaging/message-reads";
import { Transaction } from "#core/db/transact";
import * as Events from "#core/events/index";
import { PROCESSING_ERROR } from "#core/queue/subscribe";
import "#core/automations/runs/queue";
import type { Automation } from "#core/automations/index";
import type { Trigger } from "#core/automations/definition";
import type { EvaluationContext } from "#core/automations/runs/evaluate";
import type { RunStep, StoredRun } from "#core/automations/runs/model";
import { routeFrom, type Definition, type Route } from "#core/automations/runs/route";
import { isFinal, noteLastRun, RunStore, runIdOf, StaleRunError } from "#core/automations/runs/store";
import type { Lead } from "#core/leads/index";
import * as LeadReads from "#core/leads/reads";
import * as Conversations from "#core/messaging/conversations";
import { organizationProfile } from "#core/organizations/profile";
import { maxDelaySeconds, publish } from "#core/queue/messages";
import { newId, nowIso } from "#core/shared/ids";
import { queues } from "#stacks/definitions";

/**
 * How long one consumer may hold a step: past its function timeout (a holder
 * cannot still be running then) and well inside the queue's visibility timeout,
 * so a redelivered step finds the lease expired and takes it over.
 */
export const LEASE_MS = (queues.automationRuns.consumerTimeoutSeconds + 30) * 1000;
/** Runs longer than this many steps end Failed (a guard against endless Wait loops). */
export const MAX_STEPS = 500;

export interface TriggerEvent {
  /** Unique per occurrence; with the automation id it makes the run idempotent. */
  id: string;
  type: string;
  leadId: string | null;
  data: Record<string, unknown>;
  /** The lead as its producer just stored it, when the trigger message carries it (`lead.created`). */
  lead?: Lead;
}

export interface Environment {
  lead: Lead | undefined;
  organization: { name: string; timeZone: string; phone?: string | null; website?: string | null };
}

/** The organization's profile, warm-cached for 30 s by `organizationProfile` (and forgotten where it is changed). */
async function organizationOf(organizationId: string): Promise<Environment["organization"]> {
  const organization = await organizationProfile(organizationId);
  return {
    name: organization?.name ?? "",
    timeZone: organization?.timeZone ?? "America/New_York",
    phone: organization?.phone ?? null,
    website: organization?.website ?? null,
  };
}

export async function environmentOf(organizationId: string, leadId: string | null, known?: Lead): Promise<Environment> {
  const [lead, organization] = await Promise.all([
    known && known.id === leadId ? known : leadId ? LeadReads.find(organizationId, leadId) : undefined,
    organizationOf(organizationId),
  ]);
  return { lead, organization };
}

export function evaluationContext(run: StoredRun, environment: Environment, now: number): EvaluationContext {
  return {
    lead: environment.lead,
    now,
    timeZone: environment.organization.timeZone,
    runStartedAt: run.createdAt,
    hasReplied: (since) => hasReplied(run.organizationId, environment.lead, since),
  };
}

/** Whether the lead's conversation has an inbound message at or after `since` (messages are ULID-ordered). */
async function hasReplied(organizationId: string, lead: Lead | undefined, since: string): Promise<boolean> {
  const phone = lead?.contact.phone?.number;
  const conversation = phone ? await Conversations.byPhone(organizationId, phone) : undefined;
  if (!conversation) return false;
  return hasInboundSince(organizationId, conversation.id, since);
}

function newStep(seq: number, nodeId: string, kind: RunStep["kind"], type: string): RunStep {
  return {
    seq,
    nodeId,
    kind,
    type,
    status: "Pending",
    attempts: 0,
    input: null,
    output: null,
    error: null,
    startedAt: null,
    finishedAt: null,
    durationMs: null,
  };
}

/** Appends the route's steps (groups evaluated, disabled actions passed) and points the cursor at the next action. */
export function applyRoute(run: StoredRun, route: Route, at: string): StoredRun {
  const steps = [...run.steps];
  const path = [...run.path];
  for (const visited of route.visited) {
    const step = newStep(
      steps.length,
      visited.nodeId,
      visited.kind === "ConditionGroup" ? "ConditionGroup" : "Action",
      visited.kind === "ConditionGroup" ? "ConditionGroup" : visited.type,
    );
    const chosen = visited.kind === "SkippedAction" || visited.chosen;
    steps.push({
      ...step,
      status: chosen && visited.kind === "ConditionGroup" ? "Succeeded" : "Skipped",
      output: visited.kind === "ConditionGroup" ? { ...visited.result } : { reason: "The action is disabled." },
      startedAt: at,
      finishedAt: at,
      durationMs: 0,
    });
    if (chosen) path.push(visited.nodeId);
  }
  if (!route.next) {
    const anyActionRan = run.steps.some((step) => step.kind === "Action" && step.status === "Succeeded");
    return finish({ ...run, steps, path }, anyActionRan ? "Succeeded" : "Skipped", null, at);
  }
  if (steps.length >= MAX_STEPS)
    return finish({ ...run, steps, path }, "Failed", `The run reached ${MAX_STEPS} steps.`, at);
  steps.push(newStep(steps.length, route.next.id, "Action", route.next.type));
  return {
    ...run,
    steps,
    path,
    status: run.status === "Pending" ? "Pending" : "Running",
    currentNodeId: route.next.id,
    cursorSeq: steps.length - 1,
    cursorAttempt: 0,
    effectId: null,
    leaseToken: null,
    leaseUntil: null,
    waitingUntil: null,
    dueAt: null,
    modifiedAt: at,
  };
}

export function finish(run: StoredRun, status: StoredRun["status"], error: string | null, at: string): StoredRun {
  return {
    ...run,
    status,
    error,
    finishedAt: at,
    modifiedAt: at,
    currentNodeId: null,
    waitingUntil: null,
    cursorSeq: -1,
    effectId: null,
    leaseToken: null,
    leaseUntil: null,
  };
}

/**
 * Stores a run's new state. A run that just ended writes its event in the same transaction (the analytics aggregator
 * counts it from the table's stream) and notes its status on the automation.
 */
export async function save(run: StoredRun, previous: StoredRun | undefined): Promise<StoredRun> {
  const ended = isFinal(run) && (!previous || !isFinal(previous));
  if (!ended) return RunStore.write(run);
  const transaction = new Transaction();
  Events.item(run.organizationId, endEvent(run), transaction);
  const saved = await RunStore.write(run, transaction);
  await noteLastRun(run.organizationId, run.automationId, run);
  return saved;
}

export async function sendStep(run: StoredRun, delayMs = 0): Promise<void> {
  if (isFinal(run) || run.cursorSeq < 0) return;
  const delaySeconds = Math.max(0, delayMs) / 1000;
  if (delaySeconds > maxDelaySeconds) return; // the sweep sends it when it comes due
  await publish(
    AutomationStep,
    run.organizationId,
    {
      automationId: run.automationId,
      runId: run.id,
      seq: run.cursorSeq,
      attempt: run.cursorAttempt,
      // A send looked at again reads no lead (core/automations/runs/step.ts) but its message, with its run; any other
      // step reads its lead with its run.
      ...(observed(run) ? { messageId: run.effectId! } : run.leadId ? { leadId: run.leadId } : {}),
    },
    { delaySeconds },
  );
}

/** Whether the run's current step is a send looked at again (its message exists: it observes it). */
export function observed(run: StoredRun): boolean {
  const step = run.steps[run.cursorSeq];
  return run.effectId !== null && step?.status === "Running" && typeof step.output?.observations === "number";
}

/**
 * The run with its current step claimed: a lease until `now + LEASE_MS` (another consumer takes the step over once it
 * ends), the step's effect id fixed (kept when an earlier claim fixed it), the step Running.
 */
export function leased(run: StoredRun, now: number): StoredRun {
  const at = new Date(now).toISOString();
  return {
    ...run,
    status: "Running",
    leaseToken: newId(),
    leaseUntil: new Date(now + LEASE_MS).toISOString(),
    effectId: run.effectId ?? newId(),
    dueAt: null,
    modifiedAt: at,
    steps: run.steps.map((step, index) =>
      index === run.cursorSeq ? { ...step, status: "Running", startedAt: step.startedAt ?? at } : step,
    ),
  };
}

/**
 * Executes the first step of a run just created holding its lease (`leased`), in the invocation that created it
 * (core/automations/runs/step.ts): `automation` is the one the run was started from.
 */
export type FirstStep = (
  run: StoredRun,
  automation: Automation,
  /** `lead`: the lead the run was started from (its number plans a send's first read; the step reads the lead). */
  options: { random?: () => number; lead?: Lead | undefined },
) => Promise<void>;

/**
 * Starts one run of `automation` from `trigger` for an event. The run is claimed on (automation, event id), so
 * a redelivered event answers the existing run. The trigger step and the routing to the first action happen here.
 * With `firstStep` (the automation-runs consumer, which executes steps anyway), the run is created holding the
 * first action's lease and that action runs here; otherwise (a manual run over HTTP) it is the first queued step.
 */
export async function start(
  automation: Automation,
  trigger: Trigger,
  event: TriggerEvent,
  options: { random?: () => number; firstStep?: FirstStep } = {},
): Promise<{ run: StoredRun; created: boolean }> {
  const now = Date.now();
  const at = new Date(now).toISOString();
  const environment = await environmentOf(automation.organizationId, event.leadId, event.lead);
  const blank: StoredRun = {
    id: runIdOf(automation.id, event.id) ?? newId(),
    automationId: automation.id,
    automationName: automation.name,
    automationVersion: automation.version,
    organizationId: automation.organizationId,
    status: "Pending",
    trigger: { nodeId: trigger.id, type: trigger.type, eventId: event.id, eventType: event.type, data: event.data },
    leadId: environment.lead ? environment.lead.id : event.leadId,
    path: [trigger.id],
    currentNodeId: null,
    waitingUntil: null,
    steps: [
      {
        ...newStep(0, trigger.id, "Trigger", trigger.type),
        status: "Succeeded",
        attempts: 1,
        output: { eventId: event.id, eventType: event.type, ...event.data },
        startedAt: at,
        finishedAt: at,
        durationMs: 0,
      },
    ],
    error: null,
    retryCount: 0,
    createdAt: at,
    finishedAt: null,
    modifiedAt: at,
    cursorSeq: -1,
    cursorAttempt: 0,
    effectId: null,
    leaseToken: null,
    leaseUntil: null,
    rev: 0,
  };
  const definition = automation as unknown as Definition;
  const route = await routeFrom(definition, trigger.id, evaluationContext(blank, environment, now), options.random);
  const routed = applyRoute(blank, route, at);
  // Created already holding the first action's lease, with its effect id fixed: a process that stops after the
  // create leaves a run whose step another consumer takes over once the lease ends (by the effect id, once).
  const inline = options.firstStep && routed.status === "Pending" ? options.firstStep : undefined;
  const run = inline ? leased(routed, now) : routed;
  const result = await RunStore.create(run);
  // The stored run (its id is the claimed one when an interrupted attempt claimed the trigger first).
  const stored = result.run;
  if (result.created && isFinal(stored)) await save(stored, { ...stored, status: "Pending" }).catch(ignoreStale);
  // The automation notes the run as it started (Pending), as before a step's lease.
  else if (result.created) await noteLastRun(stored.organizationId, stored.automationId, routed);
  if (result.created && inline) await inline(stored, automation, { random: options.random, lead: environment.lead });
  // Not written since its create (a redelivered trigger): its first step was never recorded, so it is sent again,
  // once the lease of a start that stopped half-way (or is still running) has ended.
  else if (!isFinal(stored) && stored.rev === 0)
    await sendStep(stored, stored.leaseUntil ? Date.parse(stored.leaseUntil) - Date.now() : 0);
  return result;
}

/** Ends a run Canceled (disable, delete); a run that moved on meanwhile is read again once. */
export async function cancel(
  organizationId: string,
  automationId: string,
  runId: string,
  reason: string,
): Promise<void> {
  for (let attempt = 0; attempt < 3; attempt++) {
    const run = await RunStore.read(organizationId, automationId, runId);
    if (!run || isFinal(run)) return;
    try {
      await save(canceledRun(run, reason, nowIso()), run);
      return;
    } catch (error) {
      ignoreStale(error);
    }
  }
}

/**
 * The poison hook of `automation.step` (core/queue/subscribe): the step the
 * message names kept failing, so the run ends Failed (`ProcessingError`) at
 * that step, with its AutomationRunFailed event. A run that moved on is left alone.
 */
export async function abandon(
  organizationId: string,
  data: { automationId: string; runId: string; seq: number; attempt: number },
  error: unknown,
): Promise<void> {
  const run = await RunStore.read(organizationId, data.automationId, data.runId);
  if (!run || isFinal(run) || run.cursorSeq !== data.seq || run.cursorAttempt !== data.attempt) return;
  const at = nowIso();
  const reason = `${PROCESSING_ERROR}: the step kept failing (${error instanceof Error ? error.message : String(error)}).`;
  const steps = run.steps.map((step, index) =>
    index === run.cursorSeq ? { ...step, status: "Failed" as const, finishedAt: at, error: reason } : step,
  );
  await save(finish({ ...run, steps }, "Failed", reason, at), run).catch(ignoreStale);
}

/** Retries a Failed run from its failed step: a new step for the same node (new side-effect key), same version. */
export async function retry(run: StoredRun): Promise<StoredRun> {
  const failed = run.steps.findLast((step) => step.status === "Failed" || step.status === "Blocked");
  const at = nowIso();
  const steps = [...run.steps, newStep(run.steps.length, failed!.nodeId, failed!.kind, failed!.type)];
  const retried: StoredRun = {
    ...run,
    steps,
    status: "Running",
    error: null,
    finishedAt: null,
    currentNodeId: failed!.nodeId,
    cursorSeq: steps.length - 1,
    cursorAttempt: 0,
    effectId: null,
    leaseToken: null,
    leaseUntil: null,
    retryCount: run.retryCount + 1,
    modifiedAt: at,
  };
  const saved = await save(retried, run);
  await sendStep(saved);
  return saved;
}

/** The run ended Canceled at `at` for `reason`: the step it was at (unless already ended) and the run itself. */
export function canceledRun(run: StoredRun, reason: string, at: string): StoredRun {
  const steps = run.steps.map((step, index) =>
    index === run.cursorSeq && !["Succeeded", "Failed", "Blocked", "Skipped"].includes(step.status)
      ? { ...step, status: "Canceled" as const, finishedAt: at, error: reason }
      : step,
  );
  return finish({ ...run, steps }, "Canceled", reason, at);
}

export function ignoreStale(error: unknown): void {
  if (!(error instanceof StaleRunError)) throw error;
}
