import * as Billing from "#core/billing/index";
import { callCost, type TransactItem, type WalletRefusedError } from "#core/billing/index";
import { callEventItem, type CallEventType } from "#core/calls/events";
import { Transaction } from "#core/db/transact";
import type { Call, StatusChange } from "#core/calls/model";
import { toCall, updateCall } from "#core/calls/store";
import { nowIso } from "#core/shared/ids";
import { callLifecycle, isMissedCall, type CallStatus } from "#core/shared/status";

/**
 * A call's life after it is stored: status transitions under the ranked
 * lifecycle, the settlement or release of its hold when it ends, and the
 * deadline after which the call sweep ends it itself.
 */

/** Slack after a call's longest possible end before the call sweep stops waiting for its final status. */
export const CALL_SWEEP_GRACE_MINUTES = 15;

/**
 * How often the sweep looks at a placed call before its deadline: a placement whose queue message was lost is
 * published again, and a final status the provider has but whose callback never arrived (the stack was down) is
 * applied, within minutes of a crash instead of at the deadline.
 */
export const CALL_CHECK_IN_MS = 2 * 60_000;

/** The call's next due time: its next check-in, never past its deadline. */
export function nextCheckIn(now: number, deadlineAt: string): string {
  return new Date(Math.min(now + CALL_CHECK_IN_MS, Date.parse(deadlineAt))).toISOString();
}

/**
 * When a call holding money is overdue (its due-index entry): from the hold,
 * the ring time, the longest talk time (`maxCallMinutes`, the hold's and the
 * provider time limit's), and the grace period.
 */
export function callDeadline(heldAt: string, ringSeconds: number, maxCallMinutes: number): string {
  return new Date(
    Date.parse(heldAt) + (ringSeconds + (maxCallMinutes + CALL_SWEEP_GRACE_MINUTES) * 60) * 1000,
  ).toISOString();
}

const STATUS_REASONS: Partial<Record<CallStatus, string>> = {
  Busy: "The line was busy.",
  NoAnswer: "Nobody answered.",
  Failed: "The call could not be connected.",
  Canceled: "The call was canceled before it was answered.",
};

/** `billingStatus` of an inbound call not forwarded because the wallet refused its hold (as POST /calls answers 402). */
export const WALLET_REFUSALS = new Set<string | null>([
  "InsufficientFunds",
  "WalletSuspended",
] satisfies WalletRefusedError["billingStatus"][]);

/** The event recorded when a call enters a status. */
export const callEventTypes: Record<CallStatus, CallEventType> = {
  Queued: "CallQueued",
  Ringing: "CallRinging",
  InProgress: "CallAnswered",
  Completed: "CallCompleted",
  Busy: "CallBusy",
  NoAnswer: "CallNoAnswer",
  Failed: "CallFailed",
  Canceled: "CallCanceled",
};

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
  claim: (current: { status: CallStatus; placementStartedAt?: string } & Record<string, unknown>) => boolean = () =>
    true,
): Promise<boolean> {
  const result = await updateCall(organizationId, callId, async (current) => {
    if (!claim(current)) return undefined;
    const applied =
      change.leg === "business" && current.connectTo ? businessLegChange(current.connectTo, change) : change;
    if (applied === "answered") {
      // The business side picked up: the lead is being dialed now; the call is answered only when the lead is.
      return current.connectAnsweredAt
        ? undefined
        : { call: { ...toCall(current), connectAnsweredAt: nowIso(), modifiedAt: nowIso() } };
    }
    const transition = callLifecycle.applyTransition(current.status, applied.status);
    const call = toCall(current);
    if (!transition.accepted) {
      return applied.recordingUrl && !current.recordingUrl
        ? { call: { ...call, recordingUrl: applied.recordingUrl, modifiedAt: nowIso() } }
        : undefined;
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
    if (!callLifecycle.isFinal(applied.status)) return withStatusEvents(organizationId, call, { call: next });
    next.endedAt = at;
    const answered = applied.status === "Completed";
    const duration = answered ? (applied.durationSeconds ?? secondsBetween(next.answeredAt, at)) : 0;
    if (answered && !next.answeredAt) next.answeredAt = new Date(Date.parse(at) - duration * 1000).toISOString();
    next.duration = duration;
    const notForwarded = WALLET_REFUSALS.has(next.billingStatus) ? next.statusReason : null;
    next.statusReason =
      applied.statusReason ??
      notForwarded ??
      (answered
        ? null
        : `${STATUS_REASONS[applied.status] ?? ""}${applied.errorCode ? ` (${applied.errorCode})` : ""}`.trim());
    next.missed = isMissedCall(next.direction === "Inbound" ? "inbound" : "outbound", applied.status);
    const billing = await billFinalCall(organizationId, next);
    return withStatusEvents(organizationId, call, { call: { ...next, ...billing.fields }, items: billing.items });
  });
  if (!result) return false;
  const { before, after } = result;
  // A missed call's automation trigger comes from its CallMissed event, committed above (core/automations/runs/trigger-outbox).
  return before.status !== after.status;
}

/**
 * A status change with its events, written in its transaction (a crash keeps both or neither): an answer reported
 * only with the end (a forwarded call's Dial result, a crossed callback) is still an answer, and a missed call says so.
 */
function withStatusEvents(organizationId: string, before: Call, change: { call: Call; items?: TransactItem[] }) {
  const after = change.call;
  const transaction = new Transaction();
  transaction.add(...(change.items ?? []));
  if (after.answeredAt && !before.answeredAt && after.status !== "InProgress")
    callEventItem(organizationId, after, "CallAnswered", transaction);
  callEventItem(organizationId, after, callEventTypes[after.status], transaction);
  if (after.missed && !before.missed) callEventItem(organizationId, after, "CallMissed", transaction);
  return { call: after, items: transaction.items, afterCommit: transaction.effects };
}

/**
 * The billing of a call's final status: its reservation (keyed by the call id)
 * settled for the talk time or released. An inbound call has one only when it
 * was forwarded (the forwarded leg is charged as `CallForwarded`); without one
 * it is NotBillable, and one the wallet refused keeps that `billingStatus`.
 */
export async function billFinalCall(
  organizationId: string,
  call: Call,
): Promise<{ fields: Partial<Call>; items: TransactItem[] }> {
  if (WALLET_REFUSALS.has(call.billingStatus)) return { fields: { billableSeconds: 0, billableAmount: 0 }, items: [] };
  // The call's copy of the price list, the one its hold read (core/db/copies.ts).
  const prices = await Billing.prices(organizationId, call.id);
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
            : {
                reason: "CallForwarded",
                description: `Call from ${call.fromPhoneNumber} forwarded to ${call.forwardedTo}, ${talk}`,
              }),
          quantity: cost.billableSeconds,
          createdBy: call.createdBy,
        })
      : await Billing.releaseItems(organizationId, call.id);
  const billed = call.status === "Completed" && outcome.billingStatus !== "NotBillable";
  return {
    fields: {
      billableSeconds: billed ? cost.billableSeconds : 0,
      billableAmount: Number(outcome.billableAmount),
      billingStatus: outcome.billingStatus,
    },
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
    return {
      ...rest,
      status: "Canceled",
      statusReason: change.statusReason ?? `The business side (${connectTo}) hung up before the lead was connected.`,
    };
  }
  const reason = `${STATUS_REASONS[change.status] ?? ""}${change.errorCode ? ` (${change.errorCode})` : ""}`.trim();
  return {
    ...rest,
    statusReason: change.statusReason ?? `The business side (${connectTo}) was not reached: ${reason}`,
  };
}

function secondsBetween(from: string | null, to: string): number {
  if (!from) return 0;
  return Math.max(0, Math.round((Date.parse(to) - Date.parse(from)) / 1000));
}
