import { eventActorFields, type Actor } from "#core/auth/actor";
import * as Events from "#core/events/index";
import {
  messageEventDescription,
  ownerOf,
  recordEvent,
  type EventRecord,
  type EventRecordInput,
} from "#core/events/index";
import type { Transaction } from "#core/db/transact";
import type { Message } from "#core/messaging/model";

/**
 * The event records (spec 2.5) messaging emits: one per state change of a
 * message, conversation, phone number, suppression or a contact's consent.
 * Storage and listing live in core/events; this module names the kinds and
 * fills the actor and timeline fields the same way everywhere.
 */

/** Event types messaging emits (docs/decisions.md, "Messaging"). */
export type MessagingEventType =
  | "MessageAccepted"
  | "MessageScheduled"
  | "MessageQueued"
  | "MessageSending"
  | "MessageSent"
  | "MessageDelivered"
  | "MessageUndelivered"
  | "MessageFailed"
  | "MessageBlocked"
  | "MessageCanceled"
  | "MessageUnknown"
  | "MessageRetryScheduled"
  | "MessageReceived"
  | "ConversationSenderReassigned"
  | "ConversationSenderMoved"
  | "ConversationAssigned"
  | "ConversationUnassigned"
  | "ConversationNoteAdded"
  | "ContactOptedOut"
  | "ContactOptedIn"
  | "ContactHelpRequested"
  | "ContactRevocationFlagged"
  | "SuppressionAdded"
  | "SuppressionRemoved"
  | "PhoneNumberAdded"
  | "PhoneNumberDeleted"
  | "PhoneNumberPaused"
  | "PhoneNumberResumed";

/** `Sms` for messages; the others for what they are about. */
export type MessagingEventCategory = "Sms" | "Compliance" | "Conversation" | "PhoneNumber";

export type MessagingEventInput = Omit<EventRecordInput, "eventType" | "eventCategory"> & {
  eventType: MessagingEventType;
  eventCategory: MessagingEventCategory;
  /** Who caused it; the system when absent (consumers, webhooks, the sweeper). */
  actor?: Actor;
};

/** Stores one event record of the organization. */
export async function record(organizationId: string, input: MessagingEventInput): Promise<EventRecord> {
  return recordEvent(organizationId, stored(input));
}

/** Adds one event record to `transaction`: stored with the change it records, or not at all. */
export function item(organizationId: string, input: MessagingEventInput, transaction: Transaction): EventRecord {
  return Events.item(organizationId, stored(input), transaction);
}

function stored(input: MessagingEventInput): EventRecordInput {
  const { actor, ...event } = input;
  return {
    timelineCategory: event.eventCategory === "Sms" ? "Message" : event.eventCategory,
    timelineType: event.eventCategory === "Sms" ? "Message" : event.eventCategory,
    ...event,
    ...eventActorFields(actor),
  };
}

/** The event of a message's change, with every message field the event record carries (spec 2.5). */
export function messageEventInput(
  message: Message,
  eventType: MessagingEventType,
  actor?: Actor,
  description?: string,
): MessagingEventInput {
  return {
    eventType,
    eventCategory: "Sms",
    description: description ?? messageEventDescription(message, eventType),
    summary: message.body.slice(0, 160),
    conversationId: message.conversationId,
    ...(message.leadId ? { leadId: message.leadId } : {}),
    ...ownerOf(message),
    relatedEntityType: "Message",
    relatedEntityId: message.id,
    media: message.media,
    direction: message.direction,
    status: message.status,
    trafficType: "RealLead",
    ...pick(message, [
      "statusReason",
      "selectionReason",
      "fromPhoneNumberId",
      "fromPhoneNumber",
      "toPhoneNumber",
      "campaignId",
      "complianceAction",
      "billingStatus",
      "errorCode",
      "billableAmount",
      "queuedAt",
      "sendingStartedAt",
      "sentAt",
      "deliveredAt",
      "receivedAt",
      "failedAt",
      "undeliverableAt",
      "blockedAt",
      "nextRetryAt",
      "scheduledFor",
      "canceledAt",
      "scheduledReason",
      "cancelReason",
    ]),
    ...(message.direction === "Outbound" && message.fromPhoneNumberId
      ? { outboundPhoneNumberId: message.fromPhoneNumberId }
      : {}),
    wasManuallyOverridden: message.wasManuallyOverridden,
    retryCount: message.retryCount,
    actor,
  };
}

function pick(message: Message, fields: (keyof Message)[]): Record<string, unknown> {
  return Object.fromEntries(
    fields
      .filter((field) => message[field] !== null && message[field] !== undefined)
      .map((field) => [field, message[field]]),
  );
}
