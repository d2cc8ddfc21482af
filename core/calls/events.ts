import { actorId, type Actor } from "#core/auth/actor";
import type { Call } from "#core/calls/model";
import type { Transaction } from "#core/db/transact";
import * as Events from "#core/events/index";
import { recordEvent, type EventRecordInput } from "#core/events/index";

/** Event types calls add to the timeline (endpoint 13); endpoint 14 lists the calls themselves. */
export type CallEventType =
  | "CallQueued"
  | "CallReceived"
  | "CallRinging"
  | "CallAnswered"
  | "CallCompleted"
  | "CallBusy"
  | "CallNoAnswer"
  | "CallFailed"
  | "CallCanceled"
  | "CallMissed";

/** Records the event record (spec 2.5) of a call's change, with its billing fields. */
export async function recordCallEvent(
  organizationId: string,
  call: Call,
  eventType: CallEventType,
  actor?: Actor,
): Promise<void> {
  await recordEvent(organizationId, callEventInput(call, eventType, actor));
}

/** Adds the event of a call's change to `transaction`: stored with the change it records, or not at all. */
export function callEventItem(
  organizationId: string,
  call: Call,
  eventType: CallEventType,
  transaction: Transaction,
  actor?: Actor,
): void {
  Events.item(organizationId, callEventInput(call, eventType, actor), transaction);
}

function callEventInput(call: Call, eventType: CallEventType, actor?: Actor): EventRecordInput {
  const counterpart = call.direction === "Outbound" ? `to ${call.toPhoneNumber}` : `from ${call.fromPhoneNumber}`;
  const what = eventType === "CallMissed" ? "missed" : eventType.replace(/^Call/, "").toLowerCase();
  return {
    eventType,
    eventCategory: "Call",
    timelineCategory: "Call",
    timelineType: "Call",
    description: `${call.direction} call ${counterpart} ${what}${call.statusReason ? `: ${call.statusReason}` : ""}`,
    relatedEntityType: "Call",
    relatedEntityId: call.id,
    direction: call.direction,
    status: call.status,
    fromPhoneNumber: call.fromPhoneNumber,
    toPhoneNumber: call.toPhoneNumber,
    trafficType: "RealLead",
    ...present({
      conversationId: call.conversationId,
      leadId: call.leadId,
      assignedUserId: call.assignedUserId,
      statusReason: call.statusReason,
      fromPhoneNumberId: call.fromPhoneNumberId,
      outboundPhoneNumberId: call.direction === "Outbound" ? call.fromPhoneNumberId : null,
      selectionReason: call.selectionReason,
      billingStatus: call.billingStatus,
      billableAmount: call.billableAmount,
      errorCode: call.errorCode,
      queuedAt: call.queuedAt,
    }),
    createdBy: actor ? actorId(actor) : "system",
    actorDisplayName: actor?.displayName ?? "System",
    ...(actor?.userId ? { actorUserId: actor.userId } : {}),
    ...(actor?.email ? { actorEmail: actor.email } : {}),
  };
}

function present<T extends Record<string, unknown>>(fields: T): Partial<{ [K in keyof T]: NonNullable<T[K]> }> {
  return Object.fromEntries(
    Object.entries(fields).filter(([, value]) => value !== null && value !== undefined),
  ) as never;
}
