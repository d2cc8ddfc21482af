import { STATUS_CODES } from "node:http";
import { toJsonSchema, toJsonSchemaDefs, type ConversionConfig } from "@valibot/to-json-schema";
import { AnalyticsReportSchema } from "#core/analytics/report";
import { AutomationSchema } from "#core/automations/index";
import { AutomationRunSchema } from "#core/automations/runs/model";
import { LedgerEntrySchema, WalletSchema } from "#core/billing/index";
import { TopUpSchema } from "#core/billing/payments";
import { CallSchema } from "#core/calls/schemas";
import { EventRecordSchema } from "#core/events/index";
import { LeadSchema } from "#core/leads/schemas";
import { ConversationSchema } from "#core/messaging/conversations";
import { MessageSchema } from "#core/messaging/model";
import { PhoneNumberSchema } from "#core/messaging/phone-numbers";
import { SuppressionSchema } from "#core/suppressions/index";
import { SourceSchema } from "#core/sources/index";
import { WebhookAttemptSchema } from "#core/webhooks/delivery-log";
import { WebhookEndpointSchema } from "#core/webhooks/endpoints";
import type { AnySchema, Operation } from "#core/http/operation";
import { allOperations } from "#core/http/operations/index";
import { rateLimitPolicy } from "#core/rate-limit/index";
import { webhookCatalogueEntries, webhookJsonSchemas } from "#core/webhooks/payload-schemas";

type JsonObject = Record<string, unknown>;

/**
 * The resources a response returns, named: each is one schema under
 * `components.schemas` and every response refers to it, so generated clients
 * get a `Lead`, a `Message`, … type rather than an anonymous shape per operation.
 */
const namedResponseSchemas: Record<string, AnySchema> = {
  AnalyticsReport: AnalyticsReportSchema,
  Automation: AutomationSchema,
  AutomationRun: AutomationRunSchema,
  Call: CallSchema,
  Conversation: ConversationSchema,
  EventRecord: EventRecordSchema,
  Lead: LeadSchema,
  LedgerEntry: LedgerEntrySchema,
  Message: MessageSchema,
  PhoneNumber: PhoneNumberSchema,
  Source: SourceSchema,
  Suppression: SuppressionSchema,
  TopUp: TopUpSchema,
  Wallet: WalletSchema,
  WebhookAttempt: WebhookAttemptSchema,
  WebhookEndpoint: WebhookEndpointSchema,
};

/** Rules stated by a `describedCheck` (core/shared/validation.ts) go into the field's schema. */
const statedRules: Pick<ConversionConfig, "overrideAction"> = {
  overrideAction: ({ valibotAction, jsonSchema }) =>
    "jsonSchema" in valibotAction
      ? { ...jsonSchema, ...(valibotAction.jsonSchema as Record<string, unknown>) }
      : undefined,
};

const outputNaming: Pick<ConversionConfig, "definitions" | "overrideRef"> = {
  definitions: namedResponseSchemas,
  overrideRef: ({ referenceId }) => `#/components/schemas/${referenceId}`,
};

/** JSON Schema 2020-12 (OpenAPI 3.1's dialect) of a valibot schema; output schemas refer to the named resources. */
export function jsonSchema(schema: AnySchema, typeMode: "input" | "output"): JsonObject {
  const {
    $schema: _dialect,
    $defs: _named,
    ...rest
  } = toJsonSchema(schema, {
    target: "draft-2020-12",
    typeMode,
    errorMode: "ignore",
    ...statedRules,
    ...(typeMode === "output" ? outputNaming : {}),
  }) as JsonObject;
  return rest;
}

function namedComponentSchemas(): Record<string, JsonObject> {
  return toJsonSchemaDefs(namedResponseSchemas, {
    target: "draft-2020-12",
    typeMode: "output",
    errorMode: "ignore",
    ...statedRules,
    overrideRef: outputNaming.overrideRef,
  }) as Record<string, JsonObject>;
}

const problemSchema = {
  type: "object",
  required: ["type", "title", "status", "detail", "instance"],
  properties: {
    type: { type: "string", examples: ["about:blank"] },
    title: { type: "string", examples: ["Not Found"] },
    status: { type: "integer" },
    detail: { type: "string" },
    instance: { type: "string", description: "The request path." },
    errors: {
      type: "array",
      description:
        "400 only: each offending field, by JSON Pointer (body fields as `/field`, query parameters as `/query/Name`, path parameters as `/path/name`).",
      items: {
        type: "object",
        required: ["pointer", "detail"],
        properties: { pointer: { type: "string" }, detail: { type: "string" } },
      },
    },
    correlationId: { type: "string", description: "500 only: quote it when reporting the failure." },
  },
};

const rateLimitHeaders = {
  "RateLimit-Policy": { description: 'IETF draft: `"<partition>";q=300;w=60`.', schema: { type: "string" } },
  RateLimit: {
    description: 'IETF draft: `"<partition>";r=<remaining>;t=<seconds to reset>`.',
    schema: { type: "string" },
  },
};

function problemResponse(status: number): JsonObject {
  const headers: JsonObject = { ...rateLimitHeaders };
  if (status === 401)
    headers["WWW-Authenticate"] = {
      description: 'Bearer challenge, e.g. `Bearer realm="lead-messaging-api", error="invalid_token"`.',
      schema: { type: "string" },
    };
  if (status === 429)
    headers["Retry-After"] = {
      description: "Whole seconds until the window frees (≥ 0).",
      schema: { type: "integer", minimum: 0 },
    };
  if (status === 405) headers.Allow = { description: "Methods the path accepts.", schema: { type: "string" } };
  return {
    description: STATUS_CODES[status] ?? "Error",
    headers,
    content: { "application/problem+json": { schema: { $ref: "#/components/schemas/Problem" } } },
  };
}

function parameters(schema: AnySchema | undefined, location: "query" | "path"): JsonObject[] {
  if (!schema) return [];
  const converted = jsonSchema(schema, "input") as { properties?: Record<string, JsonObject>; required?: string[] };
  return Object.entries(converted.properties ?? {}).map(([name, property]) => ({
    name,
    in: location,
    required: location === "path" || (converted.required ?? []).includes(name),
    schema: property,
    ...(typeof property.description === "string" ? { description: property.description } : {}),
  }));
}

/** What an idempotent operation may answer besides its own problems: a key in flight (409), a key reused with another payload (422). */
const idempotencyProblems = [409, 422] as const;

const idempotencyKeyParameter = {
  name: "Idempotency-Key",
  in: "header",
  required: false,
  description:
    "Makes a retry safe for 24 h: the same key and payload answer the original response again (header `Idempotent-Replayed: true`), the same key with another payload is a 422, and a repeat while the first is in flight is a 409 (a claim whose request died is freed once that request's function timeout has passed).",
  schema: { type: "string", maxLength: 255 },
};

function operationObject(operation: Operation): JsonObject {
  const responses: JsonObject = {};
  const success = operation.success;
  const contentType = success.contentType ?? "application/json";
  const body = success.jsonSchema ?? (success.schema ? jsonSchema(success.schema, "output") : undefined);
  responses[String(success.status)] = {
    description: success.description,
    headers: rateLimitHeaders,
    ...(body || success.contentType
      ? {
          content: {
            [contentType]: { schema: body ?? { type: "string" } },
            ...Object.fromEntries(
              Object.entries(success.alternativeContent ?? {}).map(([type, schema]) => [type, { schema }]),
            ),
          },
        }
      : {}),
  };
  if (success.alternateStatus) {
    responses[String(success.alternateStatus.status)] = {
      ...(responses[String(success.status)] as JsonObject),
      description: success.alternateStatus.description,
    };
  }
  // Any operation with a path parameter, query or body can refuse its input (e.g. an over-long id) with 400.
  const inputRefusal = operation.params || operation.query || operation.body ? [400] : [];
  // Every operation can fail (500) or run out of time (503: it stops before its function's timeout).
  const declared = [
    ...operation.problems,
    ...inputRefusal,
    ...(operation.idempotent ? idempotencyProblems : []),
    500,
    503,
  ];
  for (const status of [...new Set(declared)].sort()) responses[String(status)] = problemResponse(status);
  return {
    operationId: operation.operationId,
    summary: operation.summary,
    ...(operation.description ? { description: operation.description } : {}),
    tags: [operation.tag],
    security:
      operation.auth === "public"
        ? []
        : operation.auth === "bearer" || operation.auth === "identity"
          ? [{ bearer: [] }]
          : [{ bearer: [] }, { sourceId: [], sourceKey: [] }, { sourceIdHeader: [], sourceKeyHeader: [] }],
    ...(operation.permission ? { "x-required-permission": operation.permission } : {}),
    parameters: [
      ...parameters(operation.params, "path"),
      ...parameters(operation.query, "query"),
      ...(operation.idempotent ? [idempotencyKeyParameter] : []),
    ],
    ...(operation.body || operation.bodyJsonSchema
      ? {
          requestBody: {
            required: operation.bodyRequired ?? true,
            content: {
              "application/json": {
                schema: operation.body ? jsonSchema(operation.body, "input") : operation.bodyJsonSchema,
                ...(operation.example !== undefined ? { example: operation.example } : {}),
              },
            },
          },
        }
      : {}),
    responses,
  };
}

/** What each operation group is for, shown by reference pages and generators next to the group. */
const tagDescriptions: Record<string, string> = {
  Agent: "The A2A (agent-to-agent) JSON-RPC endpoint and agent card, for AI agents acting for an organization.",
  Analytics: "Response-time, lead and usage reports over a window, as JSON or CSV.",
  Automations: "Automation definitions (triggers, conditions, actions), their versions and their runs.",
  Billing: "The organization's prepaid wallet, its ledger and prices.",
  Calls: "Outbound and inbound calls, their status and what they cost.",
  "Carrier registration":
    "The organization's 10DLC brand and campaigns at its carrier, and the numbers attached to them.",
  Conversations: "One thread per lead and contact number, with its sender number and unread state.",
  Events: "The organization's event history, the record behind timelines and webhooks.",
  Leads: "Lead intake from sellers and integrations, reading, updating and listing leads.",
  Messages: "Outbound and inbound SMS/MMS, their delivery status and what they cost.",
  Organization:
    "The organization's business profile (`/organizations/me`): name, time zone, phone and website, used by schedules and message templates.",
  "Phone numbers": "The organization's numbers used to send, receive and call.",
  Platform: "Health, the contract itself and carrier callbacks.",
  Sources: "Lead sources (sellers) and their intake credentials.",
  Suppressions: "Contacts that must not be messaged (opt-outs and manual blocks).",
  Users:
    "The organization's people: profiles (`/users/me`), roles, invitations by e-mail, deactivation, self-service sign-up. Roles per route: docs/permissions.md.",
  "API keys":
    "The organization's `sk_` keys: created with scopes (the secret shown once), listed, rotated with an overlap, revoked.",
  "Audit log":
    "Who changed what, when and from where: settings, users, roles, keys, automations, numbers, sources, webhook endpoints and suppressions.",
  Routing:
    "Leads reach the right person: ordered routing rules with round-robin pools, and which leads agents see (docs/routing.md).",
  Consent:
    "Consent you can prove: certificate verification (TrustedForm), consent records and the per-lead evidence export (docs/compliance.md).",
  Webhooks: "Endpoints that receive signed event deliveries, their deliveries and replays.",
};

/**
 * The contract. The running service names its own URL; the file in docs/ has no
 * single server, so it names a variable every client fills with its stage's URL.
 */
export function openApiDocument(serverUrl: string | undefined): JsonObject {
  const paths: Record<string, JsonObject> = {};
  // Sorted, so the document does not depend on the order modules were loaded in.
  const ordered = [...allOperations].sort((a, b) => a.path.localeCompare(b.path) || a.method.localeCompare(b.method));
  for (const operation of ordered) {
    paths[operation.path] = { ...paths[operation.path], [operation.method.toLowerCase()]: operationObject(operation) };
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "Lead Management and Messaging API",
      version: "v1",
      license: { name: "Proprietary", identifier: "LicenseRef-Proprietary" },
      description: `Capture leads, follow up by SMS/MMS and calls, automate follow-up and read response analytics. Every error is application/problem+json. Rate limit: ${rateLimitPolicy.limit} requests per ${rateLimitPolicy.windowSeconds} s per partition.`,
    },
    servers: [
      serverUrl
        ? { url: serverUrl }
        : {
            url: "{apiUrl}",
            description: "Your stage's API: the ApiUrl output of `sst deploy`, or the local stack of `npm start`.",
            variables: {
              apiUrl: {
                default: "http://localhost:3000",
                description: "The stage's base URL, without a trailing slash.",
              },
            },
          },
    ],
    tags: [...new Set(allOperations.map((operation) => operation.tag))]
      .sort()
      .map((name) => ({ name, description: tagDescriptions[name] })),
    paths,
    webhooks: webhookContract(),
    components: {
      schemas: {
        Problem: problemSchema,
        ...namedComponentSchemas(),
        ...webhookJsonSchemas((name) => `#/components/schemas/${name}`).schemas,
      },
      securitySchemes: {
        bearer: {
          type: "http",
          scheme: "bearer",
          description: "A user access token (JWT) or an organization API key beginning `sk_`.",
        },
        sourceId: {
          type: "apiKey",
          in: "query",
          name: "sourceId",
          description: "Lead source id (intake routes only); also accepted as the `X-Source-Id` header.",
        },
        sourceKey: {
          type: "apiKey",
          in: "query",
          name: "apiKey",
          description: "Lead source key (intake routes only); also accepted as the `X-Source-Key` header.",
        },
        sourceIdHeader: {
          type: "apiKey",
          in: "header",
          name: "X-Source-Id",
          description: "Lead source id as a header (intake routes only), with `X-Source-Key`.",
        },
        sourceKeyHeader: {
          type: "apiKey",
          in: "header",
          name: "X-Source-Key",
          description: "Lead source key as a header (intake routes only), with `X-Source-Id`.",
        },
      },
    },
  };
}

/** OpenAPI 3.1 `webhooks`: what each event type POSTs to a subscribed endpoint (docs/webhooks.md). */
function webhookContract(): Record<string, JsonObject> {
  const headers = {
    "webhook-id": {
      required: true,
      schema: { type: "string" },
      description: "The message id; the same on every retry and replay.",
    },
    "webhook-timestamp": {
      required: true,
      schema: { type: "string" },
      description: "Unix seconds when this attempt was signed.",
    },
    "webhook-signature": {
      required: true,
      schema: { type: "string" },
      description: "`v1,<base64 HMAC-SHA256>` per valid secret, space-separated (Standard Webhooks).",
    },
  };
  const { payloads } = webhookJsonSchemas((name) => `#/components/schemas/${name}`);
  return Object.fromEntries(
    webhookCatalogueEntries().items.map((entry) => [
      entry.type,
      {
        post: {
          // Named for generators (`onLeadProcessed`); the receiver authenticates the call by its signature headers, no scheme.
          operationId: `on${entry.type
            .split(/[._]/)
            .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
            .join("")}`,
          summary: entry.description,
          tags: ["Webhooks"],
          security: [],
          parameters: Object.entries(headers).map(([name, header]) => ({ name, in: "header", ...header })),
          requestBody: { required: true, content: { "application/json": { schema: payloads[entry.type] } } },
          responses: { "2XX": { description: "Received; any other answer (or none within 10 s) is retried." } },
        },
      },
    ]),
  );
}
