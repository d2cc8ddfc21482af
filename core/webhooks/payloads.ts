import { toJsonSchema } from "@valibot/to-json-schema";
import * as v from "valibot";
import { systemActor } from "#core/auth/actor";
import { AutomationRuns } from "#core/automations/runs/index";
import { AutomationRunSchema } from "#core/automations/runs/model";
import { Billing, WalletSchema } from "#core/billing/index";
import { Calls } from "#core/calls/index";
import { CallSchema } from "#core/calls/schemas";
import { DomainError } from "#core/errors";
import { EventRecordSchema, type EventRecord } from "#core/events/index";
import { Leads, toLead } from "#core/leads/index";
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

const resourceOf = (type: WebhookEventType | typeof pingEventType): WebhookResource => (type === pingEventType ? "ping" : webhookCatalogue[type].resource);

/** For the fan-out, which loads this module on first use (deliveries.ts). */
export { toLead };

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

type JsonSchema = Record<string, unknown>;

function jsonSchemaOf(schema: v.GenericSchema): JsonSchema {
  const { $schema: _dialect, ...rest } = toJsonSchema(schema, { target: "draft-2020-12", typeMode: "output", errorMode: "ignore" }) as JsonSchema;
  return rest;
}

/**
 * JSON Schemas of the webhook payloads, each resource (and the event record) written once: `payloads[type]` refers to
 * them through `ref(name)` (`#/components/schemas/…` in the contract, `#/schemas/…` in the catalogue's answer).
 */
export function webhookJsonSchemas(ref: (name: string) => string): { schemas: Record<string, JsonSchema>; payloads: Record<string, JsonSchema> } {
  const name = (resource: WebhookResource) => `Webhook${resource.charAt(0).toUpperCase()}${resource.slice(1)}`;
  const schemas: Record<string, JsonSchema> = { WebhookEventRecord: jsonSchemaOf(EventRecordSchema) };
  for (const resource of Object.keys(resourceSchemas) as WebhookResource[]) schemas[name(resource)] = jsonSchemaOf(resourceSchemas[resource]);
  const payloads = Object.fromEntries(
    allPayloadTypes.map((type) => [
      type,
      {
        type: "object",
        required: ["id", "type", "timestamp", "data", "event"],
        properties: {
          id: { type: "string", description: "The message id, also the webhook-id header." },
          type: { const: type },
          timestamp: { type: "string", description: "When the event happened (ISO 8601)." },
          data: { anyOf: [{ $ref: ref(name(resourceOf(type))) }, { type: "null" }] },
          event: { anyOf: [{ $ref: ref("WebhookEventRecord") }, { type: "null" }] },
        },
      },
    ]),
  );
  return { schemas, payloads };
}

/** `GET /webhook-event-types`: every type with its description, resource and payload JSON Schema (resources under `schemas`). */
export function webhookCatalogueEntries(): { items: { type: string; description: string; resource: string; payloadSchema: JsonSchema }[]; schemas: Record<string, JsonSchema> } {
  const { schemas, payloads } = webhookJsonSchemas((schemaName) => `#/schemas/${schemaName}`);
  const items = allPayloadTypes.map((type) => {
    const entry = type === pingEventType ? { description: "A test message sent by POST /webhook-endpoints/{id}/test.", resource: "ping" } : webhookCatalogue[type];
    return { type, description: entry.description, resource: entry.resource, payloadSchema: payloads[type]! };
  });
  return { items, schemas };
}
