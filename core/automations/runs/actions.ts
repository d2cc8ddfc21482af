/**
 * What each action does when a run reaches it. Every side effect is keyed on the step: a message's id is fixed
 * (`effectId`) before it is created, so a redelivered or retried step finds the message it already made instead of
 * sending a second one. Outcomes tell the engine whether the step is done, must wait, retry later, or failed.
 *
 * Each action kind's implementation is loaded by a dynamic `import()` from one table (`performers`): it brings its
 * domain (the send path with billing and senders, call placement, routing, the egress guard), and the automation-runs
 * consumer, like every function, is bundled with splitting (stacks/functions.ts), so each is a chunk that the first
 * step of its kind loads in an instance, and a cold start loads only the engine (issue 27, tenth pass). The module
 * system keeps a loaded module, so a warm instance's later steps import nothing.
 */
import type { Action } from "#core/automations/definition";
// From its own module: the definition's barrel would bring its schemas (and libphonenumber) into the consumer's cold start.
import { minutesOfDay } from "#core/automations/definition/time";
import type { RunStep, StoredRun } from "#core/automations/runs/model";
import type { LeadConsentState } from "#core/consent/index";
import { DomainError } from "#core/errors";
import type { Lead } from "#core/leads/schemas";
import type { PreparedSend } from "#core/messaging/send-read";
import type { Message } from "#core/messaging/model";
import { instantOfWallTime, wallTimeAt } from "#core/messaging/quiet-hours";

export interface ActionContext {
  run: StoredRun;
  step: RunStep;
  action: Action;
  lead: Lead | undefined;
  organization: { name: string; timeZone: string; phone?: string | null; website?: string | null };
  now: number;
  /** Id of this step's side effect (the message id of a send). */
  effectId: string;
  /** The effect id was fixed by this very execution (no earlier one had it), so nothing exists under it yet. */
  effectIsNew?: boolean;
  /**
   * A send looked at again: its message as the step read it with its run (one consistent BatchGetItem, a moment
   * before), so it is not read again; `found` is undefined when no message holds the effect id.
   */
  message?: { found: Message | undefined };
  /** The lead's consent state from the step's own read of the lead (else a send reads it). */
  consent?: LeadConsentState;
  /** A send's first read, made with the step's read of the lead (`sendRead`, core/messaging/send-read.ts). */
  prepared?: PreparedSend;
  /**
   * Set when the step did not read its lead (a send looked at again: its message exists, and observing it needs no
   * lead): reads it, for the rare step that needs it after all.
   */
  readLead?: () => Promise<Lead | undefined>;
}

export type Output = Record<string, unknown>;

export type ActionOutcome =
  | { kind: "succeeded"; output: Output; input?: Output }
  | { kind: "stop"; output: Output }
  /** The action was not done, for `reason` (a rule refused it), and the run goes on (a send its consent policy forbids). */
  | { kind: "skipped"; reason: string; output: Output }
  | { kind: "failed"; error: string; output?: Output; input?: Output; status?: "Failed" | "Blocked" }
  /** Try the step again after `delayMs` as a new attempt (HttpRequest retries). */
  | { kind: "retry"; delayMs: number; error: string; output: Output; input?: Output }
  /** Look at the step again after `delayMs`, same attempt (a send not yet handed to the carrier). */
  | { kind: "observe"; delayMs: number; output: Output; input?: Output }
  | { kind: "wait"; until: string; output: Output };

/** What an action kind does with its settings: its outcome, or a domain refusal thrown as a DomainError. */
export type Perform<T extends ActionType> = (
  context: ActionContext,
  settings: SettingsOf[T],
) => ActionOutcome | Promise<ActionOutcome>;

type SettingsOf = { [A in Action as A["type"]]: A["settings"] };
type ActionType = keyof SettingsOf;

/**
 * Every action kind's implementation, as a loader (the mapped type makes a missing or extra kind a type error). Wait
 * and Stop decide from the step alone and are here; the others are modules of their own under `actions/`.
 */
const performers: { [T in ActionType]: () => Promise<Perform<T>> } = {
  SendSms: async () => (await import("#core/automations/runs/actions/send")).sendSms,
  SendMms: async () => (await import("#core/automations/runs/actions/send")).sendMms,
  Wait: async () => wait,
  HttpRequest: async () => (await import("#core/automations/runs/actions/http-request")).httpRequest,
  UpdateLead: async () => (await import("#core/automations/runs/actions/lead")).updateLead,
  AddToSuppression: async () => (await import("#core/automations/runs/actions/lead")).addToSuppression,
  PlaceCall: async () => (await import("#core/automations/runs/actions/place-call")).placeCall,
  AssignLead: async () => (await import("#core/automations/runs/actions/lead")).assignLead,
  Stop: async () => () => ({ kind: "stop", output: {} }),
};

/** Runs the action of the current step. Refusals of other domains (their DomainErrors) become a failed step. */
export async function executeAction(context: ActionContext): Promise<ActionOutcome> {
  try {
    return await perform(context, context.action.type, context.action.settings);
  } catch (error) {
    if (error instanceof DomainError) return { kind: "failed", error: error.message };
    throw error;
  }
}

/** The action kind's implementation, loaded on its first use, applied to the settings. */
async function perform<T extends ActionType>(
  context: ActionContext,
  type: T,
  settings: SettingsOf[T],
): Promise<ActionOutcome> {
  const performer = await performers[type]();
  return performer(context, settings);
}

function wait(context: ActionContext, settings: { durationSeconds?: number; untilTime?: string }): ActionOutcome {
  const until = context.step.output?.until;
  if (typeof until === "string") {
    return Date.parse(until) <= context.now
      ? { kind: "succeeded", output: { until } }
      : { kind: "wait", until, output: { until } };
  }
  const at =
    settings.durationSeconds !== undefined
      ? context.now + settings.durationSeconds * 1000
      : nextWallClock(context.now, settings.untilTime!, context.organization.timeZone);
  const next = new Date(at).toISOString();
  return { kind: "wait", until: next, output: { until: next } };
}

/** The next instant after `now` at which the wall clock in `timeZone` reads `time` (HH:mm). */
export function nextWallClock(now: number, time: string, timeZone: string): number {
  const minutes = minutesOfDay(time)!;
  const wall = wallTimeAt(now, timeZone);
  for (let offset = 0; offset <= 2; offset++) {
    const day = new Date(Date.UTC(wall.year, wall.month - 1, wall.day + offset));
    const at = instantOfWallTime(
      {
        year: day.getUTCFullYear(),
        month: day.getUTCMonth() + 1,
        day: day.getUTCDate(),
        hour: Math.floor(minutes / 60),
        minute: minutes % 60,
        second: 0,
      },
      timeZone,
    );
    if (at > now) return at;
  }
  return now + 24 * 3_600_000;
}
