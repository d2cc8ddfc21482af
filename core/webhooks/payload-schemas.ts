import { toJsonSchema } from "@valibot/to-json-schema";
import * as v from "valibot";
import { AutomationRunSchema } from "#core/automations/runs/model";
import { WalletSchema } from "#core/billing/schemas";
import { CallSchema } from "#core/calls/schemas";
import { RegistrationOverviewSchema } from "#core/carrier-registration/schemas";
import { EventRecordSchema } from "#core/events/index";
import { LeadSchema } from "#core/leads/schemas";
import { ConversationSchema } from "#core/messaging/conversations";
import { MessageSchema } from "#core/messaging/model";
import { PhoneNumberSchema } from "#core/messaging/phone-number-schema";
import {
  pingEventType,
  webhookCatalogue,
  webhookEventTypes,
  type WebhookEventType,
  type WebhookResource,
} from "#core/webhooks/catalogue";
import { WebhookEndpointSchema } from "#core/webhooks/endpoints";

// The payloads' JSON Schemas, apart from payloads.ts (which reads each resource for a delivery): the event catalogue
// route and the contract describe payloads without bundling every domain's reads.

const resourceSchemas: Record<WebhookResource, v.GenericSchema> = {
  lead: LeadSchema,
  conversation: ConversationSchema,
  message: MessageSchema,
  call: CallSchema,
  automationRun: AutomationRunSchema,
  wallet: WalletSchema,
  phoneNumber: PhoneNumberSchema,
  carrierRegistration: RegistrationOverviewSchema,
  webhookEndpoint: WebhookEndpointSchema,
  ping: v.object({ endpointId: v.string(), message: v.string() }),
};

const resourceOf = (type: WebhookEventType | typeof pingEventType): WebhookResource =>
  type === pingEventType ? "ping" : webhookCatalogue[type].resource;

export const allPayloadTypes = [...webhookEventTypes, pingEventType] as const;

type JsonSchema = Record<string, unknown>;

function jsonSchemaOf(schema: v.GenericSchema): JsonSchema {
  const { $schema: _dialect, ...rest } = toJsonSchema(schema, {
    target: "draft-2020-12",
    typeMode: "output",
    errorMode: "ignore",
  }) as JsonSchema;
  return rest;
}

/**
 * JSON Schemas of the webhook payloads, each resource (and the event record) written once: `payloads[type]` refers to
 * them through `ref(name)` (`#/components/schemas/…` in the contract, `#/schemas/…` in the catalogue's answer).
 */
export function webhookJsonSchemas(ref: (name: string) => string): {
  schemas: Record<string, JsonSchema>;
  payloads: Record<string, JsonSchema>;
} {
  const name = (resource: WebhookResource) => `Webhook${resource.charAt(0).toUpperCase()}${resource.slice(1)}`;
  const schemas: Record<string, JsonSchema> = { WebhookEventRecord: jsonSchemaOf(EventRecordSchema) };
  for (const resource of Object.keys(resourceSchemas) as WebhookResource[])
    schemas[name(resource)] = jsonSchemaOf(resourceSchemas[resource]);
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
export function webhookCatalogueEntries(): {
  items: { type: string; description: string; resource: string; payloadSchema: JsonSchema }[];
  schemas: Record<string, JsonSchema>;
} {
  const { schemas, payloads } = webhookJsonSchemas((schemaName) => `#/schemas/${schemaName}`);
  const items = allPayloadTypes.map((type) => {
    const entry =
      type === pingEventType
        ? { description: "A test message sent by POST /webhook-endpoints/{id}/test.", resource: "ping" }
        : webhookCatalogue[type];
    return { type, description: entry.description, resource: entry.resource, payloadSchema: payloads[type]! };
  });
  return { items, schemas };
}
