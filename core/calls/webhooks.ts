/** What the carrier tells us about calls (status, inbound, the forwarded leg's dial result), each request verified first. */
import { verifiedProvider } from "#core/providers/index";
import { WALLET_REFUSALS, applyProviderEvent, locateCall, applyStatus, RING_TIMEOUT_SECONDS, WHISPER_ALLOWANCE_SECONDS, callDeadline } from "#core/calls/lifecycle";
import { Billing, callReservation, TransactionConditionFailed, WalletRefusedError, type PriceList } from "#core/billing/index";
import { type Call } from "#core/calls/model";
import "#core/calls/queue";
import { callWrites, dueEntry, readCall, toCall, updateCall } from "#core/calls/store";
import { Twiml } from "#core/calls/twiml";
import { config } from "#core/config";
import { ValidationError } from "#core/errors";
import { MessagingSettingsStore } from "#core/messaging/settings";
import { callLifecycle } from "#core/shared/status";
import { type ProviderName, type WebhookRequest } from "#core/providers/port";
import { nowIso } from "#core/shared/ids";
import { decodePhoneInput, parsePhone } from "#core/shared/phone";
import { withCorrelationParameter } from "#core/observability/index";


/** Every second a call may ring before it is answered or given up: the lead's, plus the business side's first for a bridged call. */
export function ringTime(call: Call): number {
  const lead = call.ringSeconds ?? RING_TIMEOUT_SECONDS;
  return call.connectTo ? RING_TIMEOUT_SECONDS + WHISPER_ALLOWANCE_SECONDS + lead : lead;
}

/**
 * The instructions of a recorded inbound call: forward it (holding the
 * forwarded leg's cost and noting where), or say nobody can take it (no
 * forwarding number, or a wallet that refused the hold).
 */
export async function inboundInstructions(provider: ProviderName, organizationId: string, callId: string): Promise<string> {
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
export async function holdForwardedLeg(organizationId: string, callId: string, forwardTo: string, prices: PriceList, ringSeconds: number): Promise<boolean> {
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
      { in: "path", field: "phoneNumber", detail: "Must be a valid phone number (E.164, e.g. +12125550100; URL-encode the +)." },
    ]);
  }
  return parsed.e164;
}

/** What the carrier tells us about calls: status callbacks, inbound calls and the forwarded leg's dial result. */
export const CallWebhooks = {

  /** `POST /webhooks/{provider}/calls/status`: call progress (ringing, answered, ended) for outbound and inbound calls. */
  async statusCallback(providerName: string, request: WebhookRequest): Promise<void> {
    const provider = verifiedProvider(providerName, request);
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
    const provider = verifiedProvider(providerName, request);
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
    const provider = verifiedProvider(providerName, request);
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
