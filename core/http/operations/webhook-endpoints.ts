import * as v from "valibot";
import { routedBy } from "#core/http/operation";
import { webhookEndpointRoutes } from "#stacks/definitions";
import { pageSchema } from "#core/shared/paging";
import { WebhookEventTypeEntrySchema } from "#core/webhooks/catalogue";
import {
  ListWebhookAttemptsSchema,
  PingResultSchema,
  ReplayRequestSchema,
  ReplayResultSchema,
  WebhookAttemptSchema,
} from "#core/webhooks/delivery-log";
import {
  ListWebhookEndpointsSchema,
  WebhookEndpointRequestSchema,
  WebhookEndpointSchema,
  WebhookEndpointWithSecretSchema,
} from "#core/webhooks/endpoints";

const defineOperation = routedBy(webhookEndpointRoutes);

const EndpointIdParams = v.object({ id: v.pipe(v.string(), v.minLength(1), v.maxLength(64)) });
// Declared apart from the operation: a call in an operation's arguments is kept by the bundler as an effect where
// the operation is unused, and with it every schema beside it.
const EventCatalogueSchema = v.object({
  items: v.array(WebhookEventTypeEntrySchema),
  schemas: v.record(v.string(), v.record(v.string(), v.unknown())),
});

const endpointExample = {
  url: "https://crm.example.com/webhooks/leads",
  description: "CRM sync",
  enabledEventTypes: ["lead.processed", "message.received"],
  enabled: true,
};

const tag = "Webhooks";

export const createWebhookEndpoint = /* @__PURE__ */ defineOperation({
  operationId: "createWebhookEndpoint",
  summary: "Subscribe a URL to events (the signing secret is shown only now)",
  description:
    "Deliveries are signed per Standard Webhooks with the returned `whsec_` secret (docs/webhooks.md). Deployed stages require https and a public receiver.",
  tag,
  auth: "bearer",
  permission: "webhooks:write",
  body: WebhookEndpointRequestSchema,
  idempotent: true,
  success: {
    status: 201,
    description: "The endpoint and its signing secret (shown only now)",
    schema: WebhookEndpointWithSecretSchema,
  },
  problems: [400, 401, 403, 409, 413, 415, 429],
  example: endpointExample,
});

export const getWebhookEndpoint = /* @__PURE__ */ defineOperation({
  operationId: "getWebhookEndpoint",
  summary: "Read one webhook endpoint with its delivery health",
  tag,
  auth: "bearer",
  permission: "webhooks:read",
  params: EndpointIdParams,
  success: { status: 200, description: "The endpoint (never its secret)", schema: WebhookEndpointSchema },
  problems: [401, 403, 404, 429],
});

export const listWebhookEndpoints = /* @__PURE__ */ defineOperation({
  operationId: "listWebhookEndpoints",
  summary: "List the organization's webhook endpoints (paging query in the body)",
  tag,
  auth: "bearer",
  permission: "webhooks:read",
  body: ListWebhookEndpointsSchema,
  success: {
    status: 200,
    description: "A page of endpoints",
    schema: /* @__PURE__ */ pageSchema(WebhookEndpointSchema),
  },
  problems: [400, 401, 403, 413, 415, 429],
  example: { pageSize: 20, filters: [{ field: "enabled", value: false }] },
});

export const updateWebhookEndpoint = /* @__PURE__ */ defineOperation({
  operationId: "updateWebhookEndpoint",
  summary: "Replace a webhook endpoint's settings; `enabled: true` re-enables a disabled endpoint",
  tag,
  auth: "bearer",
  permission: "webhooks:write",
  params: EndpointIdParams,
  body: WebhookEndpointRequestSchema,
  success: { status: 200, description: "The updated endpoint", schema: WebhookEndpointSchema },
  problems: [400, 401, 403, 404, 413, 415, 429],
  example: endpointExample,
});

export const deleteWebhookEndpoint = /* @__PURE__ */ defineOperation({
  operationId: "deleteWebhookEndpoint",
  summary: "Delete a webhook endpoint (pending retries to it end)",
  tag,
  auth: "bearer",
  permission: "webhooks:write",
  params: EndpointIdParams,
  success: { status: 204, description: "Deleted; no content" },
  problems: [401, 403, 404, 429],
});

export const rotateWebhookSecret = /* @__PURE__ */ defineOperation({
  operationId: "rotateWebhookSecret",
  summary: "Issue a new signing secret; the previous one still signs deliveries for 24 hours (both signatures sent)",
  tag,
  auth: "bearer",
  permission: "webhooks:write",
  params: EndpointIdParams,
  bodyRequired: false,
  success: {
    status: 201,
    description: "The endpoint and its new secret (shown only now)",
    schema: WebhookEndpointWithSecretSchema,
  },
  problems: [401, 403, 404, 429],
});

export const listWebhookAttempts = /* @__PURE__ */ defineOperation({
  operationId: "listWebhookAttempts",
  summary:
    "The endpoint's delivery log: every attempt with time, HTTP status, latency, response excerpt and error kind",
  tag,
  auth: "bearer",
  permission: "webhooks:read",
  params: EndpointIdParams,
  body: ListWebhookAttemptsSchema,
  success: {
    status: 200,
    description: "A page of attempts, newest first by default",
    schema: /* @__PURE__ */ pageSchema(WebhookAttemptSchema),
  },
  problems: [400, 401, 403, 404, 413, 415, 429],
  example: { pageSize: 50, filters: [{ field: "succeeded", value: false }] },
});

export const replayWebhookEvents = /* @__PURE__ */ defineOperation({
  operationId: "replayWebhookEvents",
  summary: "Send one event (`eventId`) or every matching event since a time (`since`) to this endpoint again",
  description:
    "Replayed deliveries keep their `webhook-id`, so a receiver that already handled one can drop it. `since` sends up to 500 events per request; when more remain, `continueFrom` is the `since` of the next request.",
  tag,
  auth: "bearer",
  permission: "webhooks:write",
  params: EndpointIdParams,
  body: ReplayRequestSchema,
  success: { status: 202, description: "Deliveries queued", schema: ReplayResultSchema },
  problems: [400, 401, 403, 404, 413, 415, 429],
  example: { since: "2026-01-01T00:00:00Z" },
});

export const pingWebhookEndpoint = /* @__PURE__ */ defineOperation({
  operationId: "pingWebhookEndpoint",
  summary: "Send a signed `webhook.test` message to the endpoint (also when it is disabled)",
  tag,
  auth: "bearer",
  permission: "webhooks:write",
  params: EndpointIdParams,
  bodyRequired: false,
  success: {
    status: 202,
    description: "The test message was queued; its attempts appear in the delivery log",
    schema: PingResultSchema,
  },
  problems: [401, 403, 404, 429],
});

export const listWebhookEventTypes = /* @__PURE__ */ defineOperation({
  operationId: "listWebhookEventTypes",
  summary: "The event catalogue: every webhook event type with its payload's JSON Schema",
  tag,
  auth: "bearer",
  permission: "webhooks:read",
  success: {
    status: 200,
    description:
      "Every event type; payload schemas refer to the resource schemas under `schemas` (`#/schemas/WebhookLead`, …)",
    schema: EventCatalogueSchema,
  },
  problems: [401, 403, 429],
});
