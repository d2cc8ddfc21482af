import * as v from "valibot";
import type { EventType } from "#core/events/types";

/** What the `data` of a webhook payload is: the resource as its REST read answers it when the event is fanned out. */
export type WebhookResource =
  | "lead"
  | "conversation"
  | "message"
  | "call"
  | "automationRun"
  | "wallet"
  | "phoneNumber"
  | "carrierRegistration"
  | "webhookEndpoint"
  | "ping";

interface CatalogueEntry {
  description: string;
  resource: WebhookResource;
  /** Event record types (`POST /events/all/my` `eventType`) delivered as this webhook type. */
  from: readonly EventType[];
}

/**
 * Every webhook event type integrators can subscribe to, the resource its payload carries and the event records it
 * comes from. `lead.received` comes from the lead itself (its first write), not from an event record.
 */
export const webhookCatalogue = {
  "lead.received": {
    description: "A lead was accepted by intake and waits for processing.",
    resource: "lead",
    from: [],
  },
  "lead.processed": { description: "A lead was processed and created.", resource: "lead", from: ["LeadCreated"] },
  "lead.duplicate": {
    description: "A lead was recognised as a duplicate of an earlier one.",
    resource: "lead",
    from: ["LeadDuplicate"],
  },
  "lead.rejected": {
    description: "A lead was rejected (validation or source rules).",
    resource: "lead",
    from: ["LeadRejected"],
  },
  "lead.failed": { description: "Processing a lead failed.", resource: "lead", from: ["LeadProcessingFailed"] },
  "lead.assigned": {
    description: "A lead was assigned or reassigned to a user (routing rule, person, claim).",
    resource: "lead",
    from: ["LeadAssigned"],
  },
  "lead.unassigned": { description: "A lead's assignee was removed.", resource: "lead", from: ["LeadUnassigned"] },
  "lead.offered": {
    description: "A first-to-claim routing rule offered a lead to a pool of users; the first to claim it gets it.",
    resource: "lead",
    from: ["LeadOffered"],
  },
  "conversation.assigned": {
    description: "A conversation was assigned or reassigned to a user (by hand, by a claim, or following its lead).",
    resource: "conversation",
    from: ["ConversationAssigned"],
  },
  "conversation.unassigned": {
    description: "A conversation's assignee was removed.",
    resource: "conversation",
    from: ["ConversationUnassigned"],
  },
  "message.queued": {
    description: "An outbound message was queued for sending.",
    resource: "message",
    from: ["MessageQueued"],
  },
  "message.sent": {
    description: "The carrier accepted an outbound message.",
    resource: "message",
    from: ["MessageSent"],
  },
  "message.delivered": {
    description: "The carrier reported an outbound message delivered.",
    resource: "message",
    from: ["MessageDelivered"],
  },
  "message.undelivered": {
    description: "The carrier reported an outbound message undelivered.",
    resource: "message",
    from: ["MessageUndelivered"],
  },
  "message.failed": { description: "An outbound message failed.", resource: "message", from: ["MessageFailed"] },
  "message.blocked": {
    description: "An outbound message was blocked (compliance or billing).",
    resource: "message",
    from: ["MessageBlocked"],
  },
  "message.received": { description: "An inbound message arrived.", resource: "message", from: ["MessageReceived"] },
  "call.completed": { description: "A call ended after being answered.", resource: "call", from: ["CallCompleted"] },
  "call.missed": { description: "An inbound call was missed.", resource: "call", from: ["CallMissed"] },
  "call.failed": { description: "A call failed.", resource: "call", from: ["CallFailed"] },
  "automation_run.succeeded": {
    description: "An automation run succeeded.",
    resource: "automationRun",
    from: ["AutomationRunSucceeded"],
  },
  "automation_run.failed": {
    description: "An automation run failed.",
    resource: "automationRun",
    from: ["AutomationRunFailed"],
  },
  "wallet.low_balance": {
    description: "The wallet's available balance fell below its low-balance threshold.",
    resource: "wallet",
    from: ["WalletLowBalance"],
  },
  "wallet.suspended": {
    description: "The wallet was suspended: usage is refused until it is reinstated.",
    resource: "wallet",
    from: ["WalletSuspended"],
  },
  "phone_number.added": {
    description: "A phone number was added to the organization.",
    resource: "phoneNumber",
    from: ["PhoneNumberAdded"],
  },
  "phone_number.removed": {
    description: "A phone number was removed (data is null: the number is gone).",
    resource: "phoneNumber",
    from: ["PhoneNumberDeleted"],
  },
  "phone_number.paused": {
    description:
      "A number drew a spike of carrier filtering errors and was paused: its sends move to the pool's other numbers until it is resumed.",
    resource: "phoneNumber",
    from: ["PhoneNumberPaused"],
  },
  "carrier_registration.updated": {
    description:
      "The registry decided or changed the organization's 10DLC brand, a campaign or a toll-free number's verification (Approved, Rejected with its reason, suspended); data is the registration overview, the event names which one.",
    resource: "carrierRegistration",
    from: ["CarrierRegistrationUpdated"],
  },
  "webhook_endpoint.disabled": {
    description: "A webhook endpoint was disabled automatically (410 Gone, or failing for too long).",
    resource: "webhookEndpoint",
    from: ["WebhookEndpointDisabled"],
  },
} as const satisfies Record<string, CatalogueEntry>;

export type WebhookEventType = keyof typeof webhookCatalogue;
export const webhookEventTypes = Object.keys(webhookCatalogue) as WebhookEventType[];

/** The type of test pings (`POST /webhook-endpoints/{id}/test`); not subscribable, always sent to the pinged endpoint. */
export const pingEventType = "webhook.test";

const byRecordType = new Map<string, WebhookEventType>(
  webhookEventTypes.flatMap((type) => webhookCatalogue[type].from.map((recordType) => [recordType, type] as const)),
);

/** The webhook type an event record is delivered as, if any. */
export function webhookTypeOf(eventRecordType: string): WebhookEventType | undefined {
  return byRecordType.get(eventRecordType);
}

export const WebhookEventTypeSchema = v.picklist(webhookEventTypes);

/** One entry of `GET /webhook-event-types`. */
export const WebhookEventTypeEntrySchema = v.object({
  type: v.string(),
  description: v.string(),
  /** The `data` of the payload: the REST resource it is (`lead`, `message`, …). */
  resource: v.string(),
  /** JSON Schema of the whole payload (also under `webhooks` in the OpenAPI document). */
  payloadSchema: v.record(v.string(), v.unknown()),
});
