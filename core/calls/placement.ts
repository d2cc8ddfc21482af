import { actorId, type Actor } from "#core/auth/actor";
import { PlaceCallSchema } from "#core/calls/schemas";
import { domainOperation } from "#core/shared/operation";
import * as Billing from "#core/billing/index";
import { callReservation } from "#core/billing/index";
import { callEventItem } from "#core/calls/events";
import { Transaction } from "#core/db/transact";
import { applyStatus, callDeadline, nextCheckIn } from "#core/calls/lifecycle";
import type { Call, PlaceCallRequest } from "#core/calls/model";
import { CallPlace } from "#core/calls/queue";
import { selectCaller } from "#core/calls/sender";
import { callWrites, claimProviderCall, dueEntry, readCall, toCall, updateCall } from "#core/calls/store";
import * as Twiml from "#core/calls/twiml";
import { config } from "#core/config";
import { UnprocessableError, ValidationError } from "#core/errors";
import * as Contacts from "#core/messaging/contacts";
import { consentBasisForContact } from "#core/leads/consent";
import { callRules } from "#core/calls/contact-rules";
import { passedCheck } from "#core/consent/contact-rules";
import * as LeadReads from "#core/leads/reads";
import { reachableAgent } from "#core/routing/reachable";
import { initiatorOf, type ConsentBasis } from "#core/consent/basis";
import * as Conversations from "#core/messaging/conversations";
import * as PhoneNumbers from "#core/messaging/phone-numbers";
import { organizationProvider } from "#core/messaging/provider-choice";
import * as MessagingSettingsStore from "#core/messaging/settings";
import { withCorrelationParameter } from "#core/observability/index";
import { organizationProfile } from "#core/organizations/profile";
import { ProviderError, type PlaceCallInput, type ProviderName } from "#core/providers/port";
import { PROCESSING_ERROR } from "#core/queue/subscribe";
import { publish } from "#core/queue/messages";
import { newId, nowIso } from "#core/shared/ids";
import * as Suppressions from "#core/suppressions/index";

/**
 * Placing a call: `POST /calls` stores it Queued with its hold, and the
 * outbound-calls consumer asks the provider to place it (at most once).
 */

/** Seconds an outbound call rings before the provider gives up (no-answer). */
export const RING_TIMEOUT_SECONDS = 30;

/** Time allowed for the whisper played to the business side of a bridged call before the lead is dialed. */
const WHISPER_ALLOWANCE_SECONDS = 60;

/**
 * `POST /calls`: checks the recipient (suppressed: 422), picks the calling
 * number, and stores the call Queued together with the reservation of its
 * longest allowed cost (402 when the wallet cannot cover it), then queues the
 * placement. The provider is called by the outbound-calls consumer.
 * `callId` (e.g. an automation step's effect id) makes a repeated request
 * answer the call it already placed.
 */
export const place = domainOperation(
  { input: PlaceCallSchema, permission: "calls:place" },
  async (
    actor: Actor,
    input: PlaceCallRequest,
    options: { callId?: string; consentBasis?: ConsentBasis | null } = {},
  ): Promise<Call> => {
    const organizationId = actor.organizationId;
    if (options.callId) {
      const existing = await readCall(organizationId, options.callId);
      if (existing) return toCall(existing);
    }
    const { to, leadId } = await Contacts.recipient(organizationId, input, "call");
    const suppression = await Suppressions.find(organizationId, to);
    if (suppression)
      throw new UnprocessableError(`${to} is on the suppression list (${suppression.reason}); it cannot be called.`);
    const callId = options.callId ?? newId();
    // The call's copy of the price list (core/db/copies.ts): its hold and its settlement read the same one.
    const [numbers, conversation, prices, organization, { outboundCalls }] = await Promise.all([
      PhoneNumbers.all(organizationId),
      Conversations.ensure(organizationId, to, leadId),
      Billing.prices(organizationId, callId),
      organizationProfile(organizationId),
      MessagingSettingsStore.read(organizationId),
    ]);
    // An automation step decided the basis already (to skip when there is none): not read again. A bare number of a
    // lead's conversation is that lead's, so its consent governs the call.
    const consentBasis =
      options.consentBasis !== undefined
        ? options.consentBasis
        : await consentBasisForContact(organizationId, leadId ?? conversation.leadId, initiatorOf(actor));
    const rules = await callRules({
      organizationId,
      callId,
      to,
      leadId,
      organizationTimeZone: organization?.timeZone ?? "America/New_York",
    });
    if ("refusal" in rules) throw new UnprocessableError(rules.refusal);
    // The business side: the one asked for, else the agent the lead is assigned to (docs/routing.md), else the
    // organization's.
    const connectTo =
      input.connectTo ??
      (await assigneePhone(organizationId, leadId ?? conversation.leadId, [
        to,
        ...numbers.map((number) => number.phoneNumber),
      ])) ??
      outboundCalls.connectTo;
    if (connectTo && numbers.some((number) => number.phoneNumber === connectTo)) {
      throw new ValidationError("The business side of a call cannot be one of the organization's own numbers.", [
        { pointer: "/connectTo", detail: `${connectTo} is a number of this organization; give a person's phone.` },
      ]);
    }
    if (connectTo === to) throw new UnprocessableError("The business side and the lead are the same number.");
    if (
      input.fromPhoneNumberId &&
      !numbers.some((number) => number.id === input.fromPhoneNumberId && number.capabilities.includes("voice"))
    ) {
      throw new ValidationError("The calling number does not exist in this organization or cannot make calls.", [
        {
          pointer: "/fromPhoneNumberId",
          detail: `Phone number ${input.fromPhoneNumberId} is not a voice-capable number of this organization.`,
        },
      ]);
    }
    const selection = selectCaller({
      numbers,
      to,
      overrideId: input.fromPhoneNumberId,
      stickyId: conversation.phoneNumberId,
      agent: conversation.assignedUserId,
    });
    if (!selection)
      throw new UnprocessableError("The organization has no phone number with the voice capability to call from.");
    const now = nowIso();
    const call: Call = {
      ...emptyCall(organizationId, organization?.name ?? null, "Outbound", selection.number.phoneNumber, to),
      id: callId,
      leadId: leadId ?? conversation.leadId ?? null,
      userId: actor.userId ?? null,
      user: actor.displayName,
      // The lead's (its conversation's) agent owns the call, whoever placed it (`userId`).
      assignedUserId: conversation.assignedUserId,
      conversationId: conversation.id,
      fromPhoneNumberId: selection.number.id,
      billingPhoneNumberId: selection.number.id,
      callerId: selection.number.phoneNumber,
      selectionReason: selection.reason,
      record: input.record,
      connectTo: connectTo ?? null,
      whisper: connectTo ? (input.whisper ?? outboundCalls.whisper ?? null) : null,
      ringSeconds: input.ringSeconds ?? RING_TIMEOUT_SECONDS,
      metadata: input.metadata,
      billingStatus: "Reserved",
      queuedAt: now,
      createdAt: now,
      createdBy: actorId(actor),
      consentBasis,
      complianceChecks: [passedCheck.suppression, ...rules.checks],
    };
    // The call, its hold and its CallQueued event are one write.
    const queued = new Transaction();
    // Due for its first check-in soon (a placement cut short by a crash is picked up then), and final by its deadline.
    const deadlineAt = callDeadline(now, ringTime(call), prices.maxCallMinutes);
    queued.add(
      ...callWrites(
        organizationId,
        call,
        undefined,
        { deadlineAt },
        dueEntry(organizationId, call.id, nextCheckIn(Date.parse(now), deadlineAt)),
      ),
    );
    callEventItem(organizationId, call, "CallQueued", queued, actor);
    await Billing.reserve({
      organizationId,
      reservationId: call.id,
      amount: callReservation(prices),
      relatedEntityType: "Call",
      items: queued.items,
    });
    for (const effect of queued.effects) await effect();
    await publish(CallPlace, organizationId, { callId: call.id });
    return call;
  },
);

/**
 * The outbound-calls consumer: claims the Queued call (at most one placement,
 * even when the queue redelivers) and asks the provider to place it. A refused
 * placement ends the call Failed and releases its reservation; calls are not
 * retried later (a person is waiting to talk now).
 */
export async function dispatch(organizationId: string, callId: string): Promise<void> {
  const provider = await organizationProvider(organizationId);
  // The claim names the provider asked, so a placement cut short is looked up there (core/calls/sweeper.ts).
  const claimed = await updateCall(organizationId, callId, async (current) =>
    current.status === "Queued" && !current.placementStartedAt && !current.providerId
      ? { call: { ...toCall(current), provider: provider.name }, extra: { placementStartedAt: nowIso() } }
      : undefined,
  );
  if (!claimed) return;
  const call = claimed.after;
  const prices = await Billing.prices(organizationId, callId);
  try {
    const result = await provider.placeCall({
      from: call.fromPhoneNumber,
      idempotencyKey: call.id,
      statusCallbackUrl: callWebhookUrl(provider.name, "status", call.id),
      record: call.record,
      ...placement(provider.name, call, prices.maxCallMinutes * 60),
    });
    await claimProviderCall(organizationId, provider.name, result.providerCallId, call.id);
    await updateCall(organizationId, callId, async (current) =>
      current.providerId
        ? undefined
        : {
            call: {
              ...toCall(current),
              providerId: result.providerCallId,
              provider: provider.name,
              modifiedAt: nowIso(),
            },
          },
    );
  } catch (error) {
    if (!(error instanceof ProviderError)) throw error;
    if (error.details.ambiguous) {
      // The provider may have placed it: its callbacks will tell; never place twice.
      await updateCall(organizationId, callId, async (current) => ({
        call: { ...toCall(current), statusReason: `Provider outcome unknown: ${error.message}` },
      }));
      return;
    }
    await applyStatus(organizationId, callId, provider.name, {
      status: "Failed",
      providerStatus: "refused",
      errorCode: error.code,
      statusReason: `The provider refused the call: ${error.message}`,
    });
  }
}

/**
 * The poison hook of `call.place` (core/queue/subscribe): a call whose
 * placement never started ends Failed (`ProcessingError`), its hold released
 * in the same write. One whose placement started is left to the call sweep,
 * which asks the provider.
 */
export async function abandon(organizationId: string, callId: string, error: unknown): Promise<void> {
  await applyStatus(
    organizationId,
    callId,
    null,
    {
      status: "Failed",
      providerStatus: "notPlaced",
      errorCode: PROCESSING_ERROR,
      statusReason: `${PROCESSING_ERROR}: placing the call kept failing (${error instanceof Error ? error.message : String(error)}).`,
    },
    (current) => current.status === "Queued" && !current.placementStartedAt,
  );
}

/**
 * Where the provider rings first and what it plays. A direct call rings the
 * lead, its talk time capped at the reservation's. A bridged call rings the
 * business side (`connectTo`) and, once it answers, plays the whisper and
 * dials the lead with our number as caller id: the lead leg's ring time and
 * talk time are the Dial's, its outcome posted to the dial webhook; the
 * business leg may last the whole Dial plus the whisper.
 */
function placement(
  provider: ProviderName,
  call: Call,
  talkSeconds: number,
): Pick<PlaceCallInput, "to" | "instructions" | "ringTimeoutSeconds" | "timeLimitSeconds"> {
  const leadRingSeconds = call.ringSeconds ?? RING_TIMEOUT_SECONDS;
  if (!call.connectTo)
    return { to: call.toPhoneNumber, ringTimeoutSeconds: leadRingSeconds, timeLimitSeconds: talkSeconds };
  return {
    to: call.connectTo,
    ringTimeoutSeconds: RING_TIMEOUT_SECONDS,
    timeLimitSeconds: talkSeconds + leadRingSeconds + WHISPER_ALLOWANCE_SECONDS,
    instructions: Twiml.bridge({
      whisper: call.whisper,
      lead: call.toPhoneNumber,
      ringSeconds: leadRingSeconds,
      action: callWebhookUrl(provider, "dial", call.id),
      callerId: call.callerId ?? call.fromPhoneNumber,
      timeLimitSeconds: talkSeconds,
    }),
  };
}

/** Every second a call may ring before it is answered or given up: the lead's, plus the business side's first for a bridged call. */
function ringTime(call: Call): number {
  const lead = call.ringSeconds ?? RING_TIMEOUT_SECONDS;
  return call.connectTo ? RING_TIMEOUT_SECONDS + WHISPER_ALLOWANCE_SECONDS + lead : lead;
}

/**
 * Where the provider posts a call's progress (`status`) or the result of
 * forwarding it (`dial`); our call id rides in the query, covered by the signature.
 */
export function callWebhookUrl(
  provider: ProviderName,
  hook: "status" | "dial",
  callId: string,
  leg?: "assignee",
): string {
  return withCorrelationParameter(
    `${config.publicBaseUrl.replace(/\/$/, "")}/webhooks/${provider}/calls/${hook}?callId=${encodeURIComponent(callId)}` +
      (leg ? `&leg=${leg}` : ""),
  );
}

/** A call with every optional field empty, the base of a placed and of an inbound call. */
export function emptyCall(
  organizationId: string,
  business: string | null,
  direction: Call["direction"],
  from: string,
  to: string,
): Call {
  return {
    id: newId(),
    providerId: null,
    provider: null,
    leadId: null,
    businessId: organizationId,
    userId: null,
    assignedUserId: null,
    conversationId: null,
    fromPhoneNumberId: null,
    billingPhoneNumberId: null,
    fromPhoneNumber: from,
    toPhoneNumber: to,
    callerId: from,
    forwardedTo: null,
    connectTo: null,
    connectAnsweredAt: null,
    whisper: null,
    ringSeconds: null,
    direction,
    status: "Queued",
    statusReason: null,
    providerStatus: null,
    errorCode: null,
    billingStatus: null,
    recordingUrl: null,
    record: false,
    missed: false,
    selectionReason: null,
    user: null,
    business,
    createdAt: nowIso(),
    queuedAt: null,
    ringingAt: null,
    answeredAt: null,
    endedAt: null,
    modifiedAt: null,
    duration: null,
    billableSeconds: null,
    billableAmount: null,
    metadata: {},
    createdBy: "system",
  };
}

/**
 * The phone of the agent a lead is assigned to, when calls may ring them now (an active user, not away, with a
 * phone on their profile); null otherwise, and then a call falls back to the organization's number. A phone that is
 * one of `notAllowed` (the organization's own numbers, the lead itself) is not rung either.
 */
export async function assigneePhone(
  organizationId: string,
  leadId: string | null | undefined,
  notAllowed: Iterable<string>,
): Promise<string | null> {
  if (!leadId) return null;
  const assignee = (await LeadReads.find(organizationId, leadId))?.assignedUserId;
  const phone = assignee ? ((await reachableAgent(organizationId, assignee))?.phone ?? null) : null;
  return phone && !new Set(notAllowed).has(phone) ? phone : null;
}
