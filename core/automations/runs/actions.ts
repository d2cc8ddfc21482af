/**
 * What each action does when a run reaches it. Every side effect is keyed on the step: a message's id is fixed
 * (`effectId`) before it is created, so a redelivered or retried step finds the message it already made instead of
 * sending a second one. Outcomes tell the engine whether the step is done, must wait, retry later, or failed.
 */
import { isConditionFailed } from "#core/db/items";
import { systemActor } from "#core/auth/actor";
import {
  jsonStringEncode,
  minutesOfDay,
  renderTemplate,
  type RenderOptions,
  webhookSignature,
  webhookSignatureHeader,
  webhookTimestampHeader,
  type Action,
} from "#core/automations/definition";
import { egressFetch, privateTargetCause, runsConfig, targetRefusal } from "#core/automations/runs/egress";

export { targetRefusal };
import { assignedUserValues, leadValue, type TemplateValues } from "#core/automations/runs/evaluate";
import type { RunStep, StoredRun } from "#core/automations/runs/model";
import { WalletRefusedError } from "#core/billing/schemas";
import { place } from "#core/calls/placement";
import { DomainError, ValidationError } from "#core/errors";
import type { Lead } from "#core/leads/schemas";
import { assignLeadFields } from "#core/leads/assign";
import { leadConsentState } from "#core/leads/consent";
import type { LeadConsentState } from "#core/consent/index";
import { assignByAutomation } from "#core/leads/assignment";
import { basisForContact, type ConsentBasis } from "#core/consent/basis";
import { Messages, type PreparedSend } from "#core/messaging/messages";
import type { Message } from "#core/messaging/model";
import { instantOfWallTime, wallTimeAt } from "#core/messaging/quiet-hours";
import { Suppressions } from "#core/suppressions/index";
import { UserLookups } from "#core/users/lookups";

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
  /** A send's first read, made with the step's read of the lead (`Messages.sendRead`). */
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

/** Runs the action of the current step. Refusals of other domains (their DomainErrors) become a failed step. */
export async function executeAction(context: ActionContext): Promise<ActionOutcome> {
  try {
    return await dispatch(context);
  } catch (error) {
    if (error instanceof DomainError) return { kind: "failed", error: error.message };
    throw error;
  }
}

async function dispatch(context: ActionContext): Promise<ActionOutcome> {
  const { action } = context;
  switch (action.type) {
    case "SendSms":
      return sendMessage(
        context,
        action.settings.body,
        [],
        action.settings.fallback,
        action.settings.fromPhoneNumberId,
      );
    case "SendMms":
      return sendMessage(
        context,
        action.settings.body,
        action.settings.mediaUrls,
        action.settings.fallback,
        action.settings.fromPhoneNumberId,
      );
    case "Wait":
      return wait(context, action.settings);
    case "HttpRequest":
      return httpRequest(context, action.settings);
    case "UpdateLead":
      return updateLead(context, action.settings.fields);
    case "AddToSuppression":
      return addToSuppression(context, action.settings.reason);
    case "PlaceCall":
      return placeCall(context, action.settings);
    case "AssignLead":
      return assignLead(context, action.settings.userId);
    case "Stop":
      return { kind: "stop", output: {} };
  }
}

/** Renders a template over the lead, the organization and (read only when the template names it) the lead's assignee. */
async function render(context: ActionContext, template: string, options: RenderOptions) {
  const { name, phone, website } = context.organization;
  const values: TemplateValues = { organizationName: name, organizationPhone: phone, organizationWebsite: website };
  const assigneeId = context.lead?.assignedUserId;
  if (assigneeId && template.includes("assignedUser.")) {
    const profile = await UserLookups.standing(context.run.organizationId, assigneeId);
    if (profile) values.assignedUser = assignedUserValues(profile);
  }
  return renderTemplate(template, (path) => leadValue(context.lead, path, values), options);
}

/** How long a send may sit before the carrier hand-off while the step keeps looking (then it counts as accepted). */
const OBSERVE_LIMIT_MS = 10 * 60_000;
const handedOff = new Set(["Scheduled", "Sending", "Sent", "Delivered", "Unknown"]);

async function sendMessage(
  context: ActionContext,
  template: string | undefined,
  mediaUrls: string[],
  fallback: string,
  fromPhoneNumberId: string | undefined,
): Promise<ActionOutcome> {
  const { run } = context;
  // A step looked at again (observe, redelivery) finds its message before any check that could refuse a new one.
  // An effect id fixed just now names no message yet: no read.
  let message = context.effectIsNew
    ? undefined
    : context.message
      ? context.message.found
      : await Messages.find(run.organizationId, context.effectId);
  // Observing a message needs nothing of the lead: the step keeps the input its first execution recorded.
  if (message && !context.lead && context.readLead) return sendOutcome(context, message, undefined);
  const lead = context.lead ?? (await context.readLead?.());
  const phone = lead?.contact.phone?.number;
  if (!lead) return { kind: "failed", error: "The run has no lead to send to." };
  if (!phone) return { kind: "failed", error: "The lead has no phone number." };
  const body = template ? await render({ ...context, lead }, template, { fallback }) : undefined;
  const input = { to: phone, ...(body !== undefined ? { body } : {}), mediaUrls };
  // The lead's consent is read once: the basis that decides whether to skip is the one the message records.
  let basis: ConsentBasis | null = null;
  if (!message) {
    const consent = await automatedContact(context);
    if ("skipped" in consent) return consent.skipped;
    basis = consent.basis;
  }
  try {
    message ??= await createMessage(context, lead.id, body, mediaUrls, fromPhoneNumberId, basis);
  } catch (error) {
    if (error instanceof WalletRefusedError) {
      return {
        kind: "failed",
        status: "Blocked",
        error: `The message was Blocked: ${error.message}`,
        input,
        output: { status: "Blocked", billingStatus: error.billingStatus },
      };
    }
    if (error instanceof DomainError) return { kind: "failed", error: refusalText(error), input };
    throw error;
  }
  return sendOutcome(context, message, input);
}

/** What a send's message says of its step: handed off (done), still before the hand-off (look again), or ended. */
function sendOutcome(context: ActionContext, message: Message, input: Output | undefined): ActionOutcome {
  const output = messageOutput(message);
  if (handedOff.has(message.status)) return { kind: "succeeded", output, input };
  if (message.status === "Pending" || message.status === "Queued") {
    const observations = Number(context.step.output?.observations ?? 0) + 1;
    if (context.now - Date.parse(message.createdAt) > OBSERVE_LIMIT_MS) return { kind: "succeeded", output, input };
    return {
      kind: "observe",
      delayMs: Math.min(30_000, 1_000 * 2 ** Math.min(observations - 1, 5)),
      output: { ...output, observations },
      input,
    };
  }
  return {
    kind: "failed",
    status: message.status === "Blocked" ? "Blocked" : "Failed",
    error: `The message ended ${message.status}${message.statusReason ? `: ${message.statusReason}` : "."}`,
    output,
    input,
  };
}

/**
 * The step's message through `Messages.send`, the one send path (its schema, sender and wallet checks), under the
 * step's effect id: a redelivered or retried step finds the message it already made.
 */
async function createMessage(
  context: ActionContext,
  leadId: string,
  body: string | undefined,
  mediaUrls: string[],
  fromPhoneNumberId: string | undefined,
  consentBasis: ConsentBasis | null,
): Promise<Message> {
  const { run } = context;
  const automation = `automation:${run.automationId}`;
  try {
    return await Messages.send(
      automationActor(run),
      {
        leadId,
        ...(body !== undefined ? { body } : {}),
        ...(mediaUrls.length ? { media: mediaUrls.map((url) => ({ url, contentType: contentTypeOf(url) })) } : {}),
        ...(fromPhoneNumberId ? { fromPhoneNumberId } : {}),
        campaignId: automation,
      },
      // The step's own consistent read of the lead (core/automations/runs/step.ts): the send does not read it again.
      {
        messageId: async () => context.effectId,
        origin: { createdBy: automation },
        consentBasis,
        ...(context.lead?.id === leadId ? { lead: context.lead } : {}),
        ...(context.prepared ? { prepared: context.prepared } : {}),
      },
    );
  } catch (error) {
    // The same step ran at once elsewhere and stored the message first.
    const stored = isConditionFailed(error) ? await Messages.find(run.organizationId, context.effectId) : undefined;
    if (stored) return stored;
    throw error;
  }
}

/**
 * The consent basis an automated text or call relies on (core/consent/basis.ts). A lead whose source requires a
 * verified consent it lacks is not contacted: the step is skipped with the rule as its reason, and the run goes on.
 */
async function automatedContact(
  context: ActionContext,
): Promise<{ basis: ConsentBasis | null } | { skipped: ActionOutcome }> {
  const { run } = context;
  const state =
    context.consent && context.lead?.id === run.leadId
      ? context.consent
      : run.leadId
        ? await leadConsentState(run.organizationId, run.leadId)
        : undefined;
  const decision = basisForContact(state, { kind: "Automated" }, new Date(context.now).toISOString());
  if (!("refused" in decision)) return decision;
  return {
    skipped: {
      kind: "skipped",
      reason: decision.refused,
      output: { complianceAction: "ConsentRequired", statusReason: decision.refused },
    },
  };
}

/** A refusal as the step's error: a validation error with the detail of each field (the rendered body too long, …). */
function refusalText(error: DomainError): string {
  const details = error instanceof ValidationError ? error.errors.map((field) => field.detail) : [];
  return [error.message, ...details].join(" ");
}

/** Who an automation's sends and calls are made by: the service, under the automation's name. */
function automationActor(run: StoredRun) {
  return { ...systemActor(run.organizationId), displayName: `Automation ${run.automationName}` };
}

function messageOutput(message: Message): Output {
  const fields = [
    "status",
    "statusReason",
    "fromPhoneNumber",
    "toPhoneNumber",
    "scheduledFor",
    "complianceAction",
    "billingStatus",
    "errorCode",
  ] as const;
  return {
    messageId: message.id,
    ...Object.fromEntries(fields.filter((field) => message[field] != null).map((field) => [field, message[field]])),
  };
}

const mediaTypes: Record<string, string> = {
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  png: "image/png",
  gif: "image/gif",
  pdf: "application/pdf",
  mp4: "video/mp4",
  vcf: "text/vcard",
};

function contentTypeOf(url: string): string {
  const extension = new URL(url).pathname.split(".").pop()?.toLowerCase() ?? "";
  return mediaTypes[extension] ?? "image/jpeg";
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

interface HttpSettings {
  url: string;
  method: string;
  headers?: Record<string, string>;
  body?: string;
  secret?: string;
  timeoutMs: number;
  maxRetries: number;
}

type AttemptRecord = { attempt: number; at: string; status: number | null; error: string | null; durationMs: number };

async function httpRequest(context: ActionContext, settings: HttpSettings): Promise<ActionOutcome> {
  const { run, step } = context;
  const attempt = step.attempts;
  const previous = (step.output?.attempts as AttemptRecord[] | undefined) ?? [];
  const body =
    settings.method === "GET"
      ? undefined
      : settings.body !== undefined
        ? await render(context, settings.body, { encode: jsonStringEncode })
        : JSON.stringify({
            automationId: run.automationId,
            runId: run.id,
            stepId: step.nodeId,
            leadId: run.leadId,
            trigger: { type: run.trigger.type, eventId: run.trigger.eventId },
          });
  const input = { url: settings.url, method: settings.method, ...(body !== undefined ? { body } : {}) };
  const refusal = await targetRefusal(settings.url);
  if (refusal) return { kind: "failed", error: refusal, input };
  const timestamp = Math.floor(context.now / 1000);
  const headers: Record<string, string> = {
    "user-agent": "lead-messaging-automations/1",
    "idempotency-key": `${run.id}:${step.seq}`,
    ...(body !== undefined ? { "content-type": "application/json" } : {}),
    ...settings.headers,
    ...(settings.secret
      ? {
          [webhookTimestampHeader]: String(timestamp),
          [webhookSignatureHeader]: webhookSignature(settings.secret, timestamp, body ?? ""),
        }
      : {}),
  };
  const started = Date.now();
  let status: number | null = null;
  let error: string | null = null;
  let responseBody = "";
  try {
    const response = await egressFetch(settings.url, {
      method: settings.method,
      headers,
      body,
      redirect: "manual",
      signal: AbortSignal.timeout(settings.timeoutMs),
    });
    status = response.status;
    responseBody = (await response.text()).slice(0, 1000);
    if (status >= 300) error = `The receiver answered ${status}.`;
  } catch (cause) {
    // The connection itself refused a private address (the host resolved differently than for the check above).
    const refused = privateTargetCause(cause);
    if (refused) return { kind: "failed", error: refused.message, input };
    error =
      cause instanceof Error && cause.name === "TimeoutError"
        ? `No answer within ${settings.timeoutMs} ms.`
        : `Request failed: ${String(cause instanceof Error ? cause.message : cause)}`;
  }
  const attempts = [
    ...previous,
    { attempt: attempt + 1, at: new Date(started).toISOString(), status, error, durationMs: Date.now() - started },
  ];
  const output = { status, attempts, ...(responseBody ? { responseBody } : {}) };
  if (!error) return { kind: "succeeded", output, input };
  const retriable = status === null || status >= 500 || status === 429 || status === 408;
  if (retriable && attempt < settings.maxRetries) {
    const base = runsConfig.retryBaseMs * 2 ** attempt;
    return { kind: "retry", delayMs: Math.min(300_000, base + Math.random() * base * 0.2), error, output, input };
  }
  return {
    kind: "failed",
    error: attempt > 0 ? `${error} Gave up after ${attempt + 1} attempts.` : error,
    output,
    input,
  };
}

/** Writes fixed values into the lead (core/leads owns how: plain fields one by one, nested objects merged). */
async function updateLead(
  context: ActionContext,
  fields: Record<string, string | number | boolean | null>,
): Promise<ActionOutcome> {
  const { lead, run } = context;
  if (!lead) return { kind: "failed", error: "The run has no lead to update." };
  const updated = await assignLeadFields(run.organizationId, lead, fields);
  return { kind: "succeeded", output: { updated }, input: { fields } };
}

async function addToSuppression(context: ActionContext, reason: string | undefined): Promise<ActionOutcome> {
  const phone = context.lead?.contact.phone?.number;
  if (!phone) return { kind: "failed", error: "The lead has no phone number to suppress." };
  const { created } = await Suppressions.add(context.run.organizationId, {
    phoneNumber: phone,
    reason: "Manual",
    note: reason ?? `Added by automation ${context.run.automationName}`,
    ...(context.run.leadId ? { leadId: context.run.leadId } : {}),
  });
  return { kind: "succeeded", output: { phoneNumber: phone, created } };
}

/** Assigns the run's lead to the user named, or by the routing rules; the output says to whom and how it went. */
async function assignLead(context: ActionContext, userId: string | undefined): Promise<ActionOutcome> {
  const { run } = context;
  if (!run.leadId) return { kind: "failed", error: "The run has no lead to assign." };
  const assigned = await assignByAutomation(automationActor(run), run.leadId, userId);
  return { kind: "succeeded", output: { ...assigned } };
}

async function placeCall(
  context: ActionContext,
  settings: { fromPhoneNumberId?: string; connectTo?: string; timeoutSeconds: number },
): Promise<ActionOutcome> {
  const { run } = context;
  if (!run.leadId) return { kind: "failed", error: "The run has no lead to call." };
  const consent = await automatedContact(context);
  if ("skipped" in consent) return consent.skipped;
  const actor = automationActor(run);
  let call: Awaited<ReturnType<typeof place>>;
  try {
    // The step's effect id is the call id, so a redelivered or retried step finds the call instead of placing another.
    call = await place(
      actor,
      {
        leadId: run.leadId,
        ...(settings.fromPhoneNumberId ? { fromPhoneNumberId: settings.fromPhoneNumberId } : {}),
        // connectTo rings the business side first and bridges it to the lead; timeoutSeconds is how long the lead rings.
        ...(settings.connectTo ? { connectTo: settings.connectTo } : {}),
        ringSeconds: settings.timeoutSeconds,
        record: false,
        metadata: { automationId: run.automationId, runId: run.id },
      },
      { callId: context.effectId, consentBasis: consent.basis },
    );
  } catch (error) {
    if (error instanceof WalletRefusedError) {
      return {
        kind: "failed",
        status: "Blocked",
        error: error.message,
        output: { billingStatus: error.billingStatus },
      };
    }
    throw error;
  }
  return { kind: "succeeded", output: { callId: call.id, status: (call as { status?: string }).status ?? null } };
}
