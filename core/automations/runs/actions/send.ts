/**
 * SendSms and SendMms: the step's message through the one send path, under the step's effect id, then watched until
 * the carrier hand-off. The messaging send path (wallet, senders, registration) is this module's, so the split
 * automation-runs consumer loads it with the first send of an instance.
 */
import type { ActionContext, ActionOutcome, Output, Perform } from "#core/automations/runs/actions";
import { automatedContact, automationActor, render } from "#core/automations/runs/actions/common";
import { WalletRefusedError } from "#core/billing/schemas";
import type { ConsentBasis } from "#core/consent/basis";
import { isConditionFailed } from "#core/db/items";
import { DomainError, ValidationError } from "#core/errors";
import * as Messages from "#core/messaging/messages";
import type { Message } from "#core/messaging/model";

export const sendSms: Perform<"SendSms"> = (context, settings) =>
  sendMessage(context, settings.body, [], settings.fallback, settings.fromPhoneNumberId);

export const sendMms: Perform<"SendMms"> = (context, settings) =>
  sendMessage(context, settings.body, settings.mediaUrls, settings.fallback, settings.fromPhoneNumberId);

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

/** A refusal as the step's error: a validation error with the detail of each field (the rendered body too long, …). */
function refusalText(error: DomainError): string {
  const details = error instanceof ValidationError ? error.errors.map((field) => field.detail) : [];
  return [error.message, ...details].join(" ");
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
