import { eventActorFields, type Actor } from "#core/auth/actor";
import { recordEvent, type EventRecordInput } from "#core/events/index";

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
  | "ContactOptedOut"
  | "ContactOptedIn"
  | "ContactHelpRequested"
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

export const MessagingEvents = {
  /** Stores one event record of the organization. */
  async record(organizationId: string, input: MessagingEventInput): Promise<void> {
    const { actor, ...event } = input;
    await recordEvent(organizationId, {
      timelineCategory: event.eventCategory === "Sms" ? "Message" : event.eventCategory,
      timelineType: event.eventCategory === "Sms" ? "Message" : event.eventCategory,
      ...event,
      ...eventActorFields(actor),
    });
  },
};

