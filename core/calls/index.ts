import { table, isConditionFailed } from "#core/db/items";
import { actorId, type Actor } from "#core/auth/actor";
import { Billing, callCost, callReservation, TransactionConditionFailed, WalletRefusedError, type PriceList, type TransactItem } from "#core/billing/index";
import { recordCallEvent, type CallEventType } from "#core/calls/events";
import { CallSchema, PlaceCallSchema, type Call, type PlaceCallRequest } from "#core/calls/model";
import "#core/calls/queue";
import { selectCaller } from "#core/calls/sender";
import { callWrites, dueEntry, readCall, toCall, updateCall } from "#core/calls/store";
import { Twiml } from "#core/calls/twiml";
import { config } from "#core/config";
import { entities, keys } from "#core/db/keys";
import { keyOrder, listPage, type ListResource, listQuerySchema } from "#core/db/list";
import { ForbiddenError, NotFoundError, UnprocessableError, ValidationError } from "#core/errors";
import { Contacts } from "#core/messaging/contacts";
import { Conversations } from "#core/messaging/conversations";
import { PhoneNumbers } from "#core/messaging/phone-numbers";
import { MessagingSettingsStore } from "#core/messaging/settings";
import { callLifecycle, inboundCallStatus, isMissedCall, type CallStatus } from "#core/shared/status";
import { Suppressions } from "#core/suppressions/index";
import { Organizations } from "#core/organizations/index";
import { organizationProvider } from "#core/messaging/provider-choice";
import { providerByName } from "#core/providers/index";
import { ProviderError, type CallStatusEvent, type PlaceCallInput, type ProviderName, type ProviderPort, type WebhookRequest } from "#core/providers/port";
import { PROCESSING_ERROR } from "#core/queue/subscribe";
import { publish } from "#core/queue/events";
import { newId, nowIso } from "#core/shared/ids";
import type { Page, PagingQuery } from "#core/shared/paging";
import { decodePhoneInput, parsePhone, toE164 } from "#core/shared/phone";
import { withCorrelationParameter } from "#core/observability/index";

export { CallSchema, PlaceCallSchema, type Call };

/** Seconds an outbound call rings before the provider gives up (no-answer). */
export const RING_TIMEOUT_SECONDS = 30;

/** Time allowed for the whisper played to the business side of a bridged call before the lead is dialed. */
const WHISPER_ALLOWANCE_SECONDS = 60;

/** Slack after a call's longest possible end before the call sweep stops waiting for its final status. */
export const CALL_SWEEP_GRACE_MINUTES = 15;

/**
 * When a call holding money is overdue (its due-index entry): from the hold,
 * the ring time, the longest talk time (`maxCallMinutes`, the hold's and the
 * provider time limit's), and the grace period.
 */
export function callDeadline(heldAt: string, ringSeconds: number, maxCallMinutes: number): string {
  return new Date(Date.parse(heldAt) + (ringSeconds + (maxCallMinutes + CALL_SWEEP_GRACE_MINUTES) * 60) * 1000).toISOString();
}

const STATUS_REASONS: Partial<Record<CallStatus, string>> = {
  Busy: "The line was busy.",
  NoAnswer: "Nobody answered.",
  Failed: "The call could not be connected.",
  Canceled: "The call was canceled before it was answered.",
};

/** `billingStatus` of an inbound call not forwarded because the wallet refused its hold (as POST /calls answers 402). */
const WALLET_REFUSALS = new Set<string | null>(["InsufficientFunds", "WalletSuspended"] satisfies WalletRefusedError["billingStatus"][]);

const EVENT_TYPES: Record<CallStatus, CallEventType> = {
  Queued: "CallQueued",
  Ringing: "CallRinging",
  InProgress: "CallAnswered",
  Completed: "CallCompleted",
  Busy: "CallBusy",
  NoAnswer: "CallNoAnswer",
  Failed: "CallFailed",
  Canceled: "CallCanceled",
};

const listResource: ListResource<Call> = {
  name: "callEvents",
  fields: {
    direction: { get: (c) => c.direction, kind: "string", filter: true },
    status: { get: (c) => c.status, kind: "string", filter: true },
    billingStatus: { get: (c) => c.billingStatus, kind: "string", filter: true },
    missed: { get: (c) => c.missed, kind: "boolean", filter: true },
    leadId: { get: (c) => c.leadId, kind: "string", filter: true },
    conversationId: { get: (c) => c.conversationId, kind: "string", filter: true },
    userId: { get: (c) => c.userId, kind: "string", filter: true },
    fromPhoneNumber: { get: (c) => c.fromPhoneNumber, kind: "string", filter: true, search: true },
    toPhoneNumber: { get: (c) => c.toPhoneNumber, kind: "string", filter: true, search: true },
    duration: { get: (c) => c.duration, kind: "number", sort: true, range: true },
    createdAt: { get: (c) => c.createdAt, kind: "date", sort: true, range: true },
    answeredAt: { get: (c) => c.answeredAt, kind: "date", sort: true, range: true },
    endedAt: { get: (c) => c.endedAt, kind: "date", sort: true, range: true },
  },
  defaultOrder: [{ field: "createdAt", direction: "desc" }],
  idOf: (c) => c.id,
  fromItem: toCall,
  candidates: (organizationId, context) => {
    const { pk, skPrefix } = keys.callByPhonePrefix(organizationId, (context as { e164: string }).e164);
    return { KeyConditionExpression: "pk = :pk AND begins_with(sk, :prefix)", ExpressionAttributeValues: { ":pk": pk, ":prefix": skPrefix } };
  },
  orders: {
    createdAt: keyOrder((organizationId, context) => keys.callByPhonePrefix(organizationId, (context as { e164: string }).e164)),
  },
};

/** Body of the list operation: the paging query with this list's field names as enums. */
export const ListCallEventsSchema = listQuerySchema(listResource);

/** Outbound and inbound calls: placing, provider progress, billing by the minute, missed calls. */
export const Calls = {
  /**
   * `POST /calls`: checks the recipient (suppressed: 422), picks the calling
   * number, and stores the call Queued together with the reservation of its
   * longest allowed cost (402 when the wallet cannot cover it), then queues the
   * placement. The provider is called by the outbound-calls consumer.
   * `callId` (e.g. an automation step's effect id) makes a repeated request
   * answer the call it already placed.
   */
  async place(actor: Actor, input: PlaceCallRequest, options: { callId?: string } = {}): Promise<Call> {
    const organizationId = actor.organizationId;
    if (options.callId) {
      const existing = await readCall(organizationId, options.callId);
      if (existing) return toCall(existing);
    }
    const { to, leadId } = await recipient(organizationId, input);
    const suppression = await Suppressions.find(organizationId, to);
    if (suppression) throw new UnprocessableError(`${to} is on the suppression list (${suppression.reason}); it cannot be called.`);
    const [numbers, conversation, prices, organization, { outboundCalls }] = await Promise.all([
      PhoneNumbers.all(organizationId),
      Conversations.ensure(organizationId, to, leadId),
      Billing.prices(organizationId),
      Organizations.fromId(organizationId),
      MessagingSettingsStore.read(organizationId),
    ]);
    const connectTo = input.connectTo ?? outboundCalls.connectTo;
    if (connectTo && numbers.some((number) => number.phoneNumber === connectTo)) {
      throw new ValidationError("The business side of a call cannot be one of the organization's own numbers.", [
        { pointer: "/connectTo", detail: `${connectTo} is a number of this organization; give a person's phone.` },
      ]);
    }
    if (connectTo === to) throw new UnprocessableError("The business side and the lead are the same number.");
    if (input.fromPhoneNumberId && !numbers.some((number) => number.id === input.fromPhoneNumberId && number.capabilities.includes("voice"))) {
      throw new ValidationError("The calling number does not exist in this organization or cannot make calls.", [
        { pointer: "/fromPhoneNumberId", detail: `Phone number ${input.fromPhoneNumberId} is not a voice-capable number of this organization.` },
      ]);
    }
    const selection = selectCaller({ numbers, to, overrideId: input.fromPhoneNumberId, stickyId: conversation.phoneNumberId });
    if (!selection) throw new UnprocessableError("The organization has no phone number with the voice capability to call from.");
    const now = nowIso();
    const call: Call = {
      ...emptyCall(organizationId, organization?.name ?? null, "Outbound", selection.number.phoneNumber, to),
      ...(options.callId ? { id: options.callId } : {}),
      leadId: leadId ?? conversation.leadId ?? null,
      userId: actor.userId ?? null,
      user: actor.displayName,
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
    };
    await Billing.reserve({
      organizationId,
      reservationId: call.id,
      amount: callReservation(prices),
      relatedEntityType: "Call",
      items: callWrites(organizationId, call, undefined, {}, dueEntry(organizationId, call.id, callDeadline(now, ringTime(call), prices.maxCallMinutes))),
    });
    await recordCallEvent(organizationId, call, "CallQueued", actor);
    await publish("outboundCalls", "call.place", organizationId, { callId: call.id });
    return call;
  },

  async fromId(actor: Actor, callId: string): Promise<Call> {
    const call = await readCall(actor.organizationId, callId);
    if (!call) throw new NotFoundError("Call", callId);
    return toCall(call);
  },

  /** Endpoint 14: calls from or to a number, newest first; the path number in any form, URL-encoded `+` included. */
  async listByPhone(actor: Actor, rawPhone: string, query: PagingQuery): Promise<Page<Call>> {
    const e164 = normalizePathPhoneNumber(rawPhone);
    return listPage(listResource, actor.organizationId, query, { e164 });
  },

  /**
   * The outbound-calls consumer: claims the Queued call (at most one placement,
   * even when the queue redelivers) and asks the provider to place it. A refused
   * placement ends the call Failed and releases its reservation; calls are not
   * retried later (a person is waiting to talk now).
   */
  async dispatch(organizationId: string, callId: string): Promise<void> {
    const claimed = await updateCall(organizationId, callId, async (current) =>
      current.status === "Queued" && !current.placementStartedAt && !current.providerId
        ? { call: toCall(current), extra: { placementStartedAt: nowIso() } }
        : undefined,
    );
    if (!claimed) return;
    const call = claimed.after;
    const provider = await organizationProvider(organizationId);
    const prices = await Billing.prices(organizationId);
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
        current.providerId ? undefined : { call: { ...toCall(current), providerId: result.providerCallId, provider: provider.name, modifiedAt: nowIso() } },
      );
    } catch (error) {
      if (!(error instanceof ProviderError)) throw error;
      if (error.details.ambiguous) {
        // The provider may have placed it: its callbacks will tell; never place twice.
        await updateCall(organizationId, callId, async (current) => ({ call: { ...toCall(current), statusReason: `Provider outcome unknown: ${error.message}` } }));
        return;
      }
      await applyStatus(organizationId, callId, provider.name, {
        status: "Failed",
        providerStatus: "refused",
        errorCode: error.code,
        statusReason: `The provider refused the call: ${error.message}`,
      });
    }
  },

  /**
   * The poison hook of `call.place` (core/queue/subscribe): a call whose
   * placement never started ends Failed (`ProcessingError`), its hold released
   * in the same write. One whose placement started is left to the call sweep,
   * which asks the provider.
   */
  async abandon(organizationId: string, callId: string, error: unknown): Promise<void> {
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
  },

  /** `POST /webhooks/{provider}/calls/status`: call progress (ringing, answered, ended) for outbound and inbound calls. */
  async statusCallback(providerName: string, request: WebhookRequest): Promise<void> {
    const provider = verified(providerName, request);
    const callId = new URL(request.url).searchParams.get("callId") ?? undefined;
    for (const event of provider.parseStatusCallback(request)) {
      if (event.type === "call.status") await applyProviderEvent(provider, event, callId);
    }
  },

  /**
   * `POST /webhooks/{provider}/calls/inbound`: a contact calls one of our numbers.
   * The call is recorded (Ringing) and answered with instructions (TwiML): with
   * a forwarding number (`inboundCalls.forwardTo` of the messaging settings) a
   * Dial that rings it for `ringSeconds`, its result posted to the dial
   * webhook, once the forwarded leg's cost is held (as for `POST /calls`);
   * without one, or when the wallet refuses the hold, a closed message and
   * hang-up (a missed call).
   * A number of no organization is rejected.
   */
  async inbound(providerName: string, request: WebhookRequest): Promise<string> {
    const provider = verified(providerName, request);
    let answer = Twiml.reject();
    for (const event of provider.parseStatusCallback(request)) {
      if (event.type !== "call.status") continue;
      const call = await applyProviderEvent(provider, event, undefined);
      if (call) answer = await inboundInstructions(provider.name, call.organizationId, call.callId);
    }
    return answer;
  },

  /**
   * `POST /webhooks/{provider}/calls/dial?callId=`: the result of a Dial, for
   * a forwarded inbound call (the forwarded number) or a bridged outbound call
   * (the lead). A person answering ends the call Completed (answered, its talk
   * time the dialed leg's, which is what is billed); any other outcome ends it
   * with that status (missed, for an inbound call). Answers the rest of the
   * call's instructions.
   */
  async dialResult(providerName: string, request: WebhookRequest): Promise<string> {
    const provider = verified(providerName, request);
    const result = provider.parseDialResult(request);
    if (!result) return Twiml.afterDial(false);
    const callIdHint = new URL(request.url).searchParams.get("callId") ?? undefined;
    const outbound = result.direction === "outbound";
    const found = await locateCall(provider.name, outbound ? result.from : result.to, result.providerCallId, callIdHint);
    if (found?.callId) {
      await applyStatus(found.organizationId, found.callId, provider.name, {
        status: result.status,
        providerStatus: result.providerStatus,
        providerCallId: result.providerCallId,
        durationSeconds: result.durationSeconds ?? 0,
      });
    }
    return outbound ? Twiml.afterBridge(result.status === "Completed") : Twiml.afterDial(result.status === "Completed");
  },
};

/**
 * Where the provider rings first and what it plays. A direct call rings the
 * lead, its talk time capped at the reservation's. A bridged call rings the
 * business side (`connectTo`) and, once it answers, plays the whisper and
 * dials the lead with our number as caller id: the lead leg's ring time and
 * talk time are the Dial's, its outcome posted to the dial webhook; the
 * business leg may last the whole Dial plus the whisper.
 */
function placement(provider: ProviderName, call: Call, talkSeconds: number): Pick<PlaceCallInput, "to" | "instructions" | "ringTimeoutSeconds" | "timeLimitSeconds"> {
  const leadRingSeconds = call.ringSeconds ?? RING_TIMEOUT_SECONDS;
  if (!call.connectTo) return { to: call.toPhoneNumber, ringTimeoutSeconds: leadRingSeconds, timeLimitSeconds: talkSeconds };
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
 * The instructions of a recorded inbound call: forward it (holding the
 * forwarded leg's cost and noting where), or say nobody can take it (no
 * forwarding number, or a wallet that refused the hold).
 */
async function inboundInstructions(provider: ProviderName, organizationId: string, callId: string): Promise<string> {
  const [call, { inboundCalls }, prices] = await Promise.all([
    readCall(organizationId, callId),
    MessagingSettingsStore.read(organizationId),
    Billing.prices(organizationId),
  ]);
  if (!call) return Twiml.reject();
  if (WALLET_REFUSALS.has(call.billingStatus)) return Twiml.unattended();
  const forwardTo = call.forwardedTo ?? inboundCalls.forwardTo;
  if (!forwardTo) return Twiml.unattended();
  if (!call.forwardedTo && !(await holdForwardedLeg(organizationId, callId, forwardTo, prices, inboundCalls.ringSeconds))) return Twiml.unattended();
  return Twiml.forward({
    forwardTo,
    ringSeconds: inboundCalls.ringSeconds,
    action: callWebhookUrl(provider, "dial", callId),
    callerId: call.fromPhoneNumber,
    timeLimitSeconds: prices.maxCallMinutes * 60,
  });
}

/**
 * Holds the forwarded leg's longest cost (the reservation `POST /calls` makes,
 * keyed by the call id) in one transaction with noting `forwardedTo` on the
 * call. False when the call is not to be forwarded: it already ended, or the
 * wallet refused the hold (suspended, or not enough available), which the call
 * then records as its `billingStatus` and `statusReason`.
 */
async function holdForwardedLeg(organizationId: string, callId: string, forwardTo: string, prices: PriceList, ringSeconds: number): Promise<boolean> {
  for (let attempt = 0; attempt < 8; attempt++) {
    const current = await readCall(organizationId, callId);
    if (!current || callLifecycle.isFinal(current.status) || WALLET_REFUSALS.has(current.billingStatus)) return false;
    if (current.forwardedTo) return true;
    const heldAt = nowIso();
    const call: Call = { ...toCall(current), forwardedTo: forwardTo, billingStatus: "Reserved", modifiedAt: heldAt };
    try {
      const due = dueEntry(organizationId, callId, callDeadline(heldAt, ringSeconds, prices.maxCallMinutes));
      const items = callWrites(organizationId, call, current.version, {}, due);
      await Billing.reserve({ organizationId, reservationId: callId, amount: callReservation(prices), relatedEntityType: "Call", items });
      return true;
    } catch (error) {
      if (error instanceof WalletRefusedError) {
        await updateCall(organizationId, callId, async (latest) =>
          latest.forwardedTo || callLifecycle.isFinal(latest.status)
            ? undefined
            : { call: { ...toCall(latest), billingStatus: error.billingStatus, statusReason: `Not forwarded: ${error.message}`, modifiedAt: nowIso() } },
        );
        return false;
      }
      if (!(error instanceof TransactionConditionFailed)) throw error; // the call changed meanwhile: read it again
    }
  }
  throw new Error(`Call ${callId} kept changing; giving up forwarding it.`);
}

function verified(providerName: string, request: WebhookRequest): ProviderPort {
  const provider = providerByName(providerName);
  if (!provider) throw new NotFoundError("Provider", providerName);
  if (!provider.verifyWebhookSignature(request)) throw new ForbiddenError("The webhook signature is missing or does not match.");
  return provider;
}

/**
 * Where the provider posts a call's progress (`status`) or the result of
 * forwarding it (`dial`); our call id rides in the query, covered by the signature.
 */
export function callWebhookUrl(provider: ProviderName, hook: "status" | "dial", callId: string): string {
  return withCorrelationParameter(`${config.publicBaseUrl.replace(/\/$/, "")}/webhooks/${provider}/calls/${hook}?callId=${encodeURIComponent(callId)}`);
}

/** A phone number from a path segment (`%2B1…`, `+1…`, ` 1…`); malformed → 400 at /path/phoneNumber. */
export function normalizePathPhoneNumber(raw: string): string {
  const parsed = parsePhone(decodePhoneInput(raw));
  if (!parsed) {
    throw new ValidationError("The phone number in the path is not valid.", [
      { pointer: "/path/phoneNumber", detail: "Must be a valid phone number (E.164, e.g. +12125550100; URL-encode the +)." },
    ]);
  }
  return parsed.e164;
}

async function recipient(organizationId: string, input: PlaceCallRequest): Promise<{ to: string; leadId: string | undefined }> {
  if (input.leadId) {
    const contact = await Contacts.ofLead(organizationId, input.leadId);
    if (!contact) throw new ValidationError("The lead does not exist in this organization.", [{ pointer: "/leadId", detail: `Lead ${input.leadId} was not found.` }]);
    if (!contact.phone) throw new ValidationError("The lead has no valid phone number.", [{ pointer: "/leadId", detail: "The lead has no phone number to call." }]);
    return { to: contact.phone, leadId: contact.leadId };
  }
  return { to: input.to!, leadId: await Contacts.leadIdByPhone(organizationId, input.to!) };
}

function emptyCall(organizationId: string, business: string | null, direction: Call["direction"], from: string, to: string): Call {
  return {
    id: newId(),
    providerId: null,
    provider: null,
    leadId: null,
    businessId: organizationId,
    userId: null,
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

/** Claims provider call id → call id; false when it already points at a call. */
async function claimProviderCall(organizationId: string, provider: string, providerCallId: string, callId: string): Promise<boolean> {
  try {
    await table.put({
      Item: { ...keys.providerCall(organizationId, provider, providerCallId), entity: entities.providerCall, callId },
      ConditionExpression: "attribute_not_exists(pk)",
    });
    return true;
  } catch (error) {
    if (isConditionFailed(error)) return false;
    throw error;
  }
}

async function callIdOfProvider(organizationId: string, provider: string, providerCallId: string): Promise<string | undefined> {
  const { Item } = await table.get({ Key: keys.providerCall(organizationId, provider, providerCallId), ConsistentRead: true });
  return Item?.callId as string | undefined;
}

/** The organization owning our number of a call, and the call when it is known (by our id, else by the provider's). */
async function locateCall(provider: ProviderName, ourNumber: string, providerCallId: string, callIdHint: string | undefined) {
  const ours = toE164(ourNumber);
  const route = ours ? await PhoneNumbers.route(ours) : undefined;
  if (!route) return undefined;
  const callId = callIdHint ?? (await callIdOfProvider(route.organizationId, provider, providerCallId));
  return { organizationId: route.organizationId, route, callId };
}

/**
 * Applies one provider callback; answers the call it belongs to, if ours. An
 * inbound call's own leg never answers it (`inboundCallStatus`): only the
 * Dial result does.
 */
async function applyProviderEvent(
  provider: ProviderPort,
  event: CallStatusEvent,
  callIdHint: string | undefined,
): Promise<{ organizationId: string; callId: string } | undefined> {
  const found = await locateCall(provider.name, event.direction === "outbound" ? event.from : event.to, event.providerCallId, callIdHint);
  if (!found) return undefined;
  const { organizationId, route } = found;
  let callId = found.callId;
  if (!callId && event.direction === "inbound") {
    if (route.releasedAt) return undefined;
    callId = await createInbound(organizationId, provider.name, event, route.phoneNumberId);
  }
  if (!callId) return undefined;
  const status = event.direction === "inbound" ? inboundCallStatus(event.status) : event.status;
  if (!status) return { organizationId, callId };
  await applyStatus(organizationId, callId, provider.name, {
    status,
    ...(event.direction === "outbound" ? { leg: "business" as const } : {}),
    providerStatus: event.providerStatus,
    providerCallId: event.providerCallId,
    ...(event.durationSeconds !== undefined ? { durationSeconds: event.durationSeconds } : {}),
    ...(event.recordingUrl ? { recordingUrl: event.recordingUrl } : {}),
    ...(event.errorCode ? { errorCode: event.errorCode } : {}),
  });
  return { organizationId, callId };
}

/** Records a new inbound call once per provider call id (the pointer claim decides the winner). */
async function createInbound(organizationId: string, provider: string, event: CallStatusEvent, phoneNumberId: string): Promise<string> {
  const from = toE164(event.from) ?? event.from;
  const to = toE164(event.to) ?? event.to;
  const [organization, conversation] = await Promise.all([
    Organizations.fromId(organizationId),
    Conversations.ensure(organizationId, from, await Contacts.leadIdByPhone(organizationId, from)),
  ]);
  const call: Call = {
    ...emptyCall(organizationId, organization?.name ?? null, "Inbound", from, to),
    providerId: event.providerCallId,
    provider,
    leadId: conversation.leadId,
    conversationId: conversation.id,
    billingPhoneNumberId: phoneNumberId,
    callerId: from,
    billingStatus: "NotBillable",
  };
  const pointer: TransactItem = {
    Put: {
      Item: { ...keys.providerCall(organizationId, provider, event.providerCallId), entity: entities.providerCall, callId: call.id },
      ConditionExpression: "attribute_not_exists(pk)",
    },
  };
  try {
    await Billing.commit([pointer, ...callWrites(organizationId, call, undefined)]);
    await recordCallEvent(organizationId, call, "CallReceived");
    return call.id;
  } catch (error) {
    const existing = await callIdOfProvider(organizationId, provider, event.providerCallId);
    if (existing) return existing;
    throw error;
  }
}

export interface StatusChange {
  status: CallStatus;
  /**
   * "business": the provider's own call of an outbound call (its status
   * callbacks, the sweep's lookup). For a bridged call that is the business
   * side's leg, which never answers the call itself (`businessLegChange`);
   * otherwise the leg of the call the Dial result reports.
   */
  leg?: "business";
  providerStatus: string;
  providerCallId?: string;
  durationSeconds?: number;
  recordingUrl?: string;
  errorCode?: string;
  statusReason?: string;
}

/**
 * Moves a call forward under the ranked lifecycle (a late `ringing` never
 * undoes `completed`; a final status stays final). On a final status the call
 * is billed in the same transaction: a completed call with a reservation (an
 * outbound call, a forwarded inbound call) is charged for its billable seconds
 * (capped at its reservation), any other outcome releases the reservation;
 * an inbound call nobody was rung for is not billed.
 * `claim` (the call sweep's) must hold on the call read, in the same conditional
 * write. True when this change moved the call to another status.
 */
export async function applyStatus(
  organizationId: string,
  callId: string,
  provider: string | null,
  change: StatusChange,
  claim: (current: { gsi3sk?: string; status: CallStatus; placementStartedAt?: string }) => boolean = () => true,
): Promise<boolean> {
  const result = await updateCall(organizationId, callId, async (current) => {
    if (!claim(current)) return undefined;
    const applied = change.leg === "business" && current.connectTo ? businessLegChange(current.connectTo, change) : change;
    if (applied === "answered") {
      // The business side picked up: the lead is being dialed now; the call is answered only when the lead is.
      return current.connectAnsweredAt ? undefined : { call: { ...toCall(current), connectAnsweredAt: nowIso(), modifiedAt: nowIso() } };
    }
    const transition = callLifecycle.applyTransition(current.status, applied.status);
    const call = toCall(current);
    if (!transition.accepted) {
      return applied.recordingUrl && !current.recordingUrl ? { call: { ...call, recordingUrl: applied.recordingUrl, modifiedAt: nowIso() } } : undefined;
    }
    const at = nowIso();
    const next: Call = {
      ...call,
      status: applied.status,
      providerStatus: applied.providerStatus,
      providerId: call.providerId ?? applied.providerCallId ?? null,
      provider: call.provider ?? provider,
      modifiedAt: nowIso(),
      ...(applied.recordingUrl ? { recordingUrl: applied.recordingUrl } : {}),
      ...(applied.errorCode ? { errorCode: applied.errorCode } : {}),
    };
    if (applied.status === "Ringing") next.ringingAt = at;
    if (applied.status === "InProgress") next.answeredAt = at;
    if (!callLifecycle.isFinal(applied.status)) return { call: next };
    next.endedAt = at;
    const answered = applied.status === "Completed";
    const duration = answered ? (applied.durationSeconds ?? secondsBetween(next.answeredAt, at)) : 0;
    if (answered && !next.answeredAt) next.answeredAt = new Date(Date.parse(at) - duration * 1000).toISOString();
    next.duration = duration;
    const notForwarded = WALLET_REFUSALS.has(next.billingStatus) ? next.statusReason : null;
    next.statusReason = applied.statusReason ?? notForwarded ?? (answered ? null : `${STATUS_REASONS[applied.status] ?? ""}${applied.errorCode ? ` (${applied.errorCode})` : ""}`.trim());
    next.missed = isMissedCall(next.direction === "Inbound" ? "inbound" : "outbound", applied.status);
    const billing = await billFinalCall(organizationId, next);
    return { call: { ...next, ...billing.fields }, items: billing.items };
  });
  if (!result) return false;
  const { before, after } = result;
  if (before.status === after.status) return false;
  // An answer reported only with the end (a forwarded call's Dial result, a crossed callback) is still an answer.
  if (after.answeredAt && !before.answeredAt && after.status !== "InProgress") await recordCallEvent(organizationId, after, "CallAnswered");
  await recordCallEvent(organizationId, after, EVENT_TYPES[after.status]);
  if (after.missed && !before.missed) {
    await recordCallEvent(organizationId, after, "CallMissed");
    await publish("automationRuns", "call.missed", organizationId, {
      callId: after.id,
      leadId: after.leadId,
      conversationId: after.conversationId,
      from: after.fromPhoneNumber,
      to: after.toPhoneNumber,
      at: after.endedAt ?? nowIso(),
    });
  }
  return true;
}

/**
 * The billing of a call's final status: its reservation (keyed by the call id)
 * settled for the talk time or released. An inbound call has one only when it
 * was forwarded (the forwarded leg is charged as `CallForwarded`); without one
 * it is NotBillable, and one the wallet refused keeps that `billingStatus`.
 */
export async function billFinalCall(organizationId: string, call: Call): Promise<{ fields: Partial<Call>; items: TransactItem[] }> {
  if (WALLET_REFUSALS.has(call.billingStatus)) return { fields: { billableSeconds: 0, billableAmount: 0 }, items: [] };
  const prices = await Billing.prices(organizationId);
  const cost = callCost(prices, call.duration ?? 0);
  const talk = `${call.duration} s talk, ${cost.billableSeconds} s billed`;
  const { items, outcome } =
    call.status === "Completed" && cost.billableSeconds > 0
      ? await Billing.settlement({
          organizationId,
          reservationId: call.id,
          relatedEntityId: call.id,
          amount: cost.amount,
          ...(call.direction === "Outbound"
            ? { reason: "CallMinutes", description: `Call to ${call.toPhoneNumber}, ${talk}` }
            : { reason: "CallForwarded", description: `Call from ${call.fromPhoneNumber} forwarded to ${call.forwardedTo}, ${talk}` }),
          quantity: cost.billableSeconds,
          createdBy: call.createdBy,
        })
      : await Billing.releaseItems(organizationId, call.id);
  const billed = call.status === "Completed" && outcome.billingStatus !== "NotBillable";
  return {
    fields: { billableSeconds: billed ? cost.billableSeconds : 0, billableAmount: Number(outcome.billableAmount), billingStatus: outcome.billingStatus },
    items,
  };
}

/**
 * What the business side's leg of a bridged call means for the call: its
 * ringing is the call ringing; its answer only notes `connectAnsweredAt` (the
 * lead is dialed then, and the Dial result decides the call); its end before
 * any Dial result means the lead was never connected (Canceled when it hung
 * up, else its own Busy/NoAnswer/Failed with the business side named).
 */
function businessLegChange(connectTo: string, change: StatusChange): StatusChange | "answered" {
  if (change.status === "InProgress") return "answered";
  if (!callLifecycle.isFinal(change.status)) return change;
  const { durationSeconds: _businessTalk, ...rest } = change;
  if (change.status === "Completed") {
    return { ...rest, status: "Canceled", statusReason: change.statusReason ?? `The business side (${connectTo}) hung up before the lead was connected.` };
  }
  const reason = `${STATUS_REASONS[change.status] ?? ""}${change.errorCode ? ` (${change.errorCode})` : ""}`.trim();
  return { ...rest, statusReason: change.statusReason ?? `The business side (${connectTo}) was not reached: ${reason}` };
}

function secondsBetween(from: string | null, to: string): number {
  if (!from) return 0;
  return Math.max(0, Math.round((Date.parse(to) - Date.parse(from)) / 1000));
}
