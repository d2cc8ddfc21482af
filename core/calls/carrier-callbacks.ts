import * as Billing from "#core/billing/index";
import {
  callReservation,
  TransactionConditionFailed,
  WalletRefusedError,
  type PriceList,
  type TransactItem,
} from "#core/billing/index";
import { recordCallEvent } from "#core/calls/events";
import { applyStatus, callDeadline, WALLET_REFUSALS } from "#core/calls/lifecycle";
import type { Call } from "#core/calls/model";
import { assigneePhone, callWebhookUrl, emptyCall } from "#core/calls/placement";
import { callIdOfProvider, callWrites, dueEntry, readCall, toCall, updateCall } from "#core/calls/store";
import * as Twiml from "#core/calls/twiml";
import { ProviderCallEntity } from "#core/db/entities/calls";
import { where } from "#core/db/expression";
import * as Contacts from "#core/messaging/contacts";
import * as Conversations from "#core/messaging/conversations";
import { routeOf } from "#core/messaging/number-routes";
import * as MessagingSettingsStore from "#core/messaging/settings";
import { organizationProfile } from "#core/organizations/profile";
import type { CallStatusEvent, ProviderName, ProviderPort, WebhookRequest } from "#core/providers/port";
import { verifiedProvider } from "#core/providers/index";
import { nowIso } from "#core/shared/ids";
import { toE164 } from "#core/shared/phone";
import { callLifecycle, inboundCallStatus } from "#core/shared/status";

/**
 * Provider callbacks of calls: progress (status), a contact calling one of our
 * numbers (inbound, answered with instructions), and the result of a Dial.
 * Each is verified first (`verifiedProvider`), then its organization found from
 * our number in it.
 */

/** `POST /webhooks/{provider}/calls/status`: call progress (ringing, answered, ended) for outbound and inbound calls. */
export async function statusCallback(providerName: string, request: WebhookRequest): Promise<void> {
  const provider = verifiedProvider(providerName, request);
  const callId = new URL(request.url).searchParams.get("callId") ?? undefined;
  for (const event of provider.parseStatusCallback(request)) {
    if (event.type === "call.status") await applyProviderEvent(provider, event, callId);
  }
}

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
export async function inbound(providerName: string, request: WebhookRequest): Promise<string> {
  const provider = verifiedProvider(providerName, request);
  let answer = Twiml.reject();
  for (const event of provider.parseStatusCallback(request)) {
    if (event.type !== "call.status") continue;
    const call = await applyProviderEvent(provider, event, undefined);
    if (call) answer = await inboundInstructions(provider.name, call.organizationId, call.callId);
  }
  return answer;
}

/**
 * `POST /webhooks/{provider}/calls/dial?callId=`: the result of a Dial, for
 * a forwarded inbound call (the forwarded number) or a bridged outbound call
 * (the lead). A person answering ends the call Completed (answered, its talk
 * time the dialed leg's, which is what is billed); any other outcome ends it
 * with that status (missed, for an inbound call). Answers the rest of the
 * call's instructions.
 */
export async function dialResult(providerName: string, request: WebhookRequest): Promise<string> {
  const provider = verifiedProvider(providerName, request);
  const result = provider.parseDialResult(request);
  if (!result) return Twiml.afterDial(false);
  const url = new URL(request.url);
  const callIdHint = url.searchParams.get("callId") ?? undefined;
  const outbound = result.direction === "outbound";
  const found = await locateCall(provider.name, outbound ? result.from : result.to, result.providerCallId, callIdHint);
  if (found?.callId && !outbound && url.searchParams.get("leg") === "assignee" && result.status !== "Completed") {
    // The lead's agent did not take it: the organization's forwarding number rings next, the call goes on.
    const onward = await forwardOnward(provider.name, found.organizationId, found.callId);
    if (onward) return onward;
  }
  if (found?.callId) {
    await applyStatus(found.organizationId, found.callId, provider.name, {
      status: result.status,
      providerStatus: result.providerStatus,
      providerCallId: result.providerCallId,
      durationSeconds: result.durationSeconds ?? 0,
    });
  }
  return outbound ? Twiml.afterBridge(result.status === "Completed") : Twiml.afterDial(result.status === "Completed");
}

/**
 * The instructions of a recorded inbound call: forward it (holding the
 * forwarded leg's cost and noting where), or say nobody can take it (no
 * forwarding number, or a wallet that refused the hold). A caller who is a
 * lead assigned to an agent rings that agent first (their profile's phone,
 * when they are active and not away); the Dial's action then says
 * `leg=assignee`, and if the agent does not answer, the forwarding number
 * rings next (`forwardOnward`).
 */
async function inboundInstructions(provider: ProviderName, organizationId: string, callId: string): Promise<string> {
  const [call, { inboundCalls }, prices] = await Promise.all([
    readCall(organizationId, callId),
    MessagingSettingsStore.read(organizationId),
    Billing.prices(organizationId, callId),
  ]);
  if (!call) return Twiml.reject();
  if (WALLET_REFUSALS.has(call.billingStatus)) return Twiml.unattended();
  const fallback = inboundCalls.forwardTo;
  const forwardTo =
    call.forwardedTo ??
    (await assigneePhone(organizationId, call.leadId, [call.fromPhoneNumber, call.toPhoneNumber])) ??
    fallback;
  if (!forwardTo) return Twiml.unattended();
  // Any forwarded leg but the forwarding number itself is the assignee's: the forwarding number may follow it.
  const onward = fallback !== null && forwardTo !== fallback;
  // The hold's deadline allows both legs to ring.
  const ringSeconds = inboundCalls.ringSeconds * (onward ? 2 : 1);
  if (!call.forwardedTo && !(await holdForwardedLeg(organizationId, callId, forwardTo, prices, ringSeconds)))
    return Twiml.unattended();
  return forwardInstructions(
    provider,
    callId,
    call.fromPhoneNumber,
    forwardTo,
    onward,
    inboundCalls.ringSeconds,
    prices,
  );
}

function forwardInstructions(
  provider: ProviderName,
  callId: string,
  callerId: string,
  forwardTo: string,
  assigneeLeg: boolean,
  ringSeconds: number,
  prices: PriceList,
): string {
  return Twiml.forward({
    forwardTo,
    ringSeconds,
    action: callWebhookUrl(provider, "dial", callId, assigneeLeg ? "assignee" : undefined),
    callerId,
    timeLimitSeconds: prices.maxCallMinutes * 60,
  });
}

/**
 * The assignee's leg of an inbound call was not answered: notes the forwarding number as the forwarded leg (the
 * hold taken for the first leg covers it; only one leg talks) and answers a Dial of it. Undefined when there is no
 * forwarding number to go on to, or the call already ended: the Dial result then ends the call as usual. A replayed
 * result of the assignee's leg answers the same onward Dial without ending anything.
 */
async function forwardOnward(
  provider: ProviderName,
  organizationId: string,
  callId: string,
): Promise<string | undefined> {
  const [{ inboundCalls }, prices] = await Promise.all([
    MessagingSettingsStore.read(organizationId),
    Billing.prices(organizationId, callId),
  ]);
  const fallback = inboundCalls.forwardTo;
  if (!fallback) return undefined;
  const moved = await updateCall(organizationId, callId, async (latest) =>
    !latest.forwardedTo || latest.forwardedTo === fallback || callLifecycle.isFinal(latest.status)
      ? undefined
      : { call: { ...toCall(latest), forwardedTo: fallback, modifiedAt: nowIso() } },
  );
  const call = moved?.after ?? (await readCall(organizationId, callId));
  if (!call || call.forwardedTo !== fallback || callLifecycle.isFinal(call.status)) return undefined;
  return forwardInstructions(provider, callId, call.fromPhoneNumber, fallback, false, inboundCalls.ringSeconds, prices);
}

/**
 * Holds the forwarded leg's longest cost (the reservation `POST /calls` makes,
 * keyed by the call id) in one transaction with noting `forwardedTo` on the
 * call. False when the call is not to be forwarded: it already ended, or the
 * wallet refused the hold (suspended, or not enough available), which the call
 * then records as its `billingStatus` and `statusReason`.
 */
async function holdForwardedLeg(
  organizationId: string,
  callId: string,
  forwardTo: string,
  prices: PriceList,
  ringSeconds: number,
): Promise<boolean> {
  for (let attempt = 0; attempt < 8; attempt++) {
    const current = await readCall(organizationId, callId);
    if (!current || callLifecycle.isFinal(current.status) || WALLET_REFUSALS.has(current.billingStatus)) return false;
    if (current.forwardedTo) return true;
    const heldAt = nowIso();
    const call: Call = { ...toCall(current), forwardedTo: forwardTo, billingStatus: "Reserved", modifiedAt: heldAt };
    try {
      const due = dueEntry(organizationId, callId, callDeadline(heldAt, ringSeconds, prices.maxCallMinutes));
      const items = callWrites(organizationId, call, current.version, {}, due);
      await Billing.reserve({
        organizationId,
        reservationId: callId,
        amount: callReservation(prices),
        relatedEntityType: "Call",
        items,
      });
      return true;
    } catch (error) {
      if (error instanceof WalletRefusedError) {
        await updateCall(organizationId, callId, async (latest) =>
          latest.forwardedTo || callLifecycle.isFinal(latest.status)
            ? undefined
            : {
                call: {
                  ...toCall(latest),
                  billingStatus: error.billingStatus,
                  statusReason: `Not forwarded: ${error.message}`,
                  modifiedAt: nowIso(),
                },
              },
        );
        return false;
      }
      if (!(error instanceof TransactionConditionFailed)) throw error; // the call changed meanwhile: read it again
    }
  }
  throw new Error(`Call ${callId} kept changing; giving up forwarding it.`);
}

/** The organization owning our number of a call, and the call when it is known (by our id, else by the provider's). */
async function locateCall(
  provider: ProviderName,
  ourNumber: string,
  providerCallId: string,
  callIdHint: string | undefined,
) {
  const route = await routeOf(ourNumber);
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
  const found = await locateCall(
    provider.name,
    event.direction === "outbound" ? event.from : event.to,
    event.providerCallId,
    callIdHint,
  );
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
async function createInbound(
  organizationId: string,
  provider: string,
  event: CallStatusEvent,
  phoneNumberId: string,
): Promise<string> {
  const from = toE164(event.from) ?? event.from;
  const to = toE164(event.to) ?? event.to;
  const [organization, conversation] = await Promise.all([
    organizationProfile(organizationId),
    Conversations.ensure(organizationId, from, await Contacts.leadIdByPhone(organizationId, from)),
  ]);
  const call: Call = {
    ...emptyCall(organizationId, organization?.name ?? null, "Inbound", from, to),
    providerId: event.providerCallId,
    provider,
    leadId: conversation.leadId,
    conversationId: conversation.id,
    assignedUserId: conversation.assignedUserId,
    billingPhoneNumberId: phoneNumberId,
    callerId: from,
    billingStatus: "NotBillable",
  };
  const pointer: TransactItem = {
    Put: ProviderCallEntity.putAt(
      { organizationId, provider, providerCallId: event.providerCallId },
      { callId: call.id },
      { condition: where.new() },
    ),
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
