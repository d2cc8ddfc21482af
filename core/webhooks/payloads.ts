import { toJsonSchema } from "@valibot/to-json-schema";
import * as v from "valibot";
import { systemActor } from "#core/auth/actor";
import { AutomationRuns } from "#core/automations/runs/index";
import { AutomationRunSchema } from "#core/automations/runs/model";
import { Billing, WalletSchema } from "#core/billing/index";
import { Calls } from "#core/calls/index";
import { CallSchema } from "#core/calls/model";
import { DomainError } from "#core/errors";
import { EventRecordSchema, type EventRecord } from "#core/events/index";
import { Leads } from "#core/leads/index";
import { LeadSchema, type Lead } from "#core/leads/schemas";
import { Messages } from "#core/messaging/messages";
import { MessageSchema } from "#core/messaging/model";
import { PhoneNumbers, PhoneNumberSchema } from "#core/messaging/phone-numbers";
import { pingEventType, webhookCatalogue, webhookEventTypes, type WebhookEventType, type WebhookResource } from "#core/webhooks/catalogue";
import { WebhookEndpoints, WebhookEndpointSchema } from "#core/webhooks/endpoints";

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

const resourceSchemas: Record<WebhookResource, v.GenericSchema> = {
  lead: LeadSchema,
  message: MessageSchema,
  call: CallSchema,
  automationRun: AutomationRunSchema,
  wallet: WalletSchema,
  phoneNumber: PhoneNumberSchema,
  webhookEndpoint: WebhookEndpointSchema,
  ping: v.object({ endpointId: v.string(), message: v.string() }),
};

/** The valibot schema of one webhook type's payload (catalogue route and the contract's `webhooks`). */
export function payloadSchema(type: WebhookEventType | typeof pingEventType): v.GenericSchema {
  const resource = type === pingEventType ? "ping" : webhookCatalogue[type].resource;
  return v.object({
    id: v.string(),
    type: v.literal(type),
    timestamp: v.string(),
    data: v.nullable(resourceSchemas[resource]),
    event: v.nullable(EventRecordSchema),
  });
}

export const allPayloadTypes = [...webhookEventTypes, pingEventType] as const;

/** The webhook message id of an event record (stable: a re-read stream record names the same delivery). */
export function messageIdOfEvent(eventId: string): string {
  return `msg_${eventId}`;
}

/** The payload of an event record delivered as `type`, with its resource read now. */
export async function eventPayload(organizationId: string, type: WebhookEventType, event: EventRecord): Promise<WebhookPayload> {
  return { id: messageIdOfEvent(event.id), type, timestamp: event.createdAt, data: await currentResource(organizationId, webhookCatalogue[type].resource, event), event };
}

/** The `lead.received` payload of a lead just written by intake. */
export function leadReceivedPayload(lead: Lead): WebhookPayload {
  return { id: `msg_lead_${lead.id}`, type: "lead.received", timestamp: lead.createdAt, data: lead, event: null };
}

async function currentResource(organizationId: string, resource: WebhookResource, event: EventRecord): Promise<unknown> {
  const actor = systemActor(organizationId);
  const id = event.relatedEntityId ?? "";
  try {
    switch (resource) {
      case "lead":
        return event.leadId ? await Leads.fromId(actor, event.leadId) : null;
      case "message":
        return await Messages.fromId(actor, id);
      case "call":
        return await Calls.fromId(actor, id);
      case "automationRun": {
        const automationId = event.campaignId?.replace(/^automation:/, "");
        return automationId ? await AutomationRuns.fromId(actor, automationId, id) : null;
      }
      case "wallet":
        return await Billing.wallet(organizationId);
      case "phoneNumber":
        return await PhoneNumbers.fromId(actor, id);
      case "webhookEndpoint":
        return await WebhookEndpoints.fromId(actor, id);
      case "ping":
        return null;
    }
  } catch (error) {
    // Gone since (a deleted number, a removed endpoint): the event record still says what happened.
    if (error instanceof DomainError) return null;
    throw error;
  }
}

/** `GET /webhook-event-types`: every type with its description, resource and payload JSON Schema. */
export function webhookCatalogueEntries(): { type: string; description: string; resource: string; payloadSchema: Record<string, unknown> }[] {
  return allPayloadTypes.map((type) => {
    const { $schema: _dialect, ...payloadSchemaJson } = toJsonSchema(payloadSchema(type), { target: "draft-2020-12", typeMode: "output", errorMode: "ignore" }) as Record<string, unknown>;
    const entry = type === pingEventType ? { description: "A test message sent by POST /webhook-endpoints/{id}/test.", resource: "ping" } : webhookCatalogue[type];
    return { type, description: entry.description, resource: entry.resource, payloadSchema: payloadSchemaJson };
  });
}
