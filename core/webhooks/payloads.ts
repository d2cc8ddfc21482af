import { systemActor } from "#core/auth/actor";
import * as AutomationRunRecords from "#core/automations/runs/records";
import * as Billing from "#core/billing/index";
import { fromId as callFromId } from "#core/calls/queries";
import { registrationOverview } from "#core/carrier-registration/reads";
import { DomainError, UnreadableItemError } from "#core/errors";
import type { EventRecord } from "#core/events/index";
import * as LeadReads from "#core/leads/reads";
import { toLead } from "#core/leads/reads";
import type { Lead } from "#core/leads/schemas";
import * as Conversations from "#core/messaging/conversations";
import { messageFromId } from "#core/messaging/message-reads";
import * as PhoneNumbers from "#core/messaging/phone-numbers";
import { pingEventType, webhookCatalogue, type WebhookEventType, type WebhookResource } from "#core/webhooks/catalogue";
import * as WebhookEndpoints from "#core/webhooks/endpoints";

/**
 * The body of every delivery (docs/webhooks.md): `id` (also the `webhook-id` header), `type`, `timestamp` (when the
 * event happened), `data` (the resource as its REST read answered it at fan-out; null when it no longer exists) and
 * `event` (the event record as `POST /events/all/my` lists it; null for `lead.received` and pings).
 */
export interface WebhookPayload {
  id: string;
  type: WebhookEventType | typeof pingEventType;
  timestamp: string;
  data: unknown;
  event: EventRecord | null;
}

/** For the fan-out, which loads this module on first use (deliveries.ts). */
export { toLead };

/** The webhook message id of an event record (stable: a re-read stream record names the same delivery). */
export function messageIdOfEvent(eventId: string): string {
  return `msg_${eventId}`;
}

/** The payload of an event record delivered as `type`, with its resource read now. */
export async function eventPayload(
  organizationId: string,
  type: WebhookEventType,
  event: EventRecord,
): Promise<WebhookPayload> {
  return {
    id: messageIdOfEvent(event.id),
    type,
    timestamp: event.createdAt,
    data: await currentResource(organizationId, webhookCatalogue[type].resource, event),
    event,
  };
}

/** The `lead.received` payload of a lead just written by intake. */
export function leadReceivedPayload(lead: Lead): WebhookPayload {
  return { id: `msg_lead_${lead.id}`, type: "lead.received", timestamp: lead.createdAt, data: lead, event: null };
}

async function currentResource(
  organizationId: string,
  resource: WebhookResource,
  event: EventRecord,
): Promise<unknown> {
  const actor = systemActor(organizationId);
  const id = event.relatedEntityId ?? "";
  try {
    switch (resource) {
      case "lead":
        return event.leadId ? await LeadReads.fromId(actor, event.leadId) : null;
      case "conversation":
        return await Conversations.fromId(actor, id);
      case "message":
        return await messageFromId(actor, id);
      case "call":
        return await callFromId(actor, id);
      case "automationRun": {
        const automationId = event.campaignId?.replace(/^automation:/, "");
        return automationId ? await AutomationRunRecords.fromId(actor, automationId, id) : null;
      }
      case "wallet":
        return await Billing.wallet(organizationId);
      case "phoneNumber":
        return await PhoneNumbers.fromId(actor, id);
      case "carrierRegistration":
        return await registrationOverview(organizationId);
      case "webhookEndpoint":
        return await WebhookEndpoints.fromId(actor, id);
      case "ping":
        return null;
    }
  } catch (error) {
    // Gone since (a deleted number, a removed endpoint): the event record still says what happened. An item that
    // cannot be read is no such answer: the delivery fails and is retried, and the error is logged.
    if (error instanceof DomainError && !(error instanceof UnreadableItemError)) return null;
    throw error;
  }
}
