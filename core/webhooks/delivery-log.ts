import * as v from "valibot";
import type { Actor } from "#core/auth/actor";
import { WebhookDeliveryEntity } from "#core/db/entities/webhooks";
import { computed, where } from "#core/db/expression";
import { conditionally, table } from "#core/db/items";
import { keys } from "#core/db/keys";
import { keyOrder, listPage, type ListResource, listQuerySchema, prefixQuery } from "#core/db/list";
import { NotFoundError } from "#core/errors";
import { envelope, publishAll, type Envelope } from "#core/queue/messages";
import { newId, nowIso } from "#core/shared/ids";
import { type Page, type PagingQuery } from "#core/shared/paging";
import { pingEventType } from "#core/webhooks/catalogue";
import * as WebhookEndpoints from "#core/webhooks/endpoints";
import type { WebhookPayload } from "#core/webhooks/payloads";
import { WebhookDeliver } from "#core/webhooks/queue";

// The delivery records and their log, apart from deliveries.ts: the test and delivery-log routes need these and
// none of the fan-out, payload building or sending (which read every kind of resource and carry the egress).

/** Deliveries and their attempt log are kept this long. */
export const retentionSeconds = 30 * 24 * 3600;

/** Why an attempt failed, for the delivery log. */
export type AttemptErrorKind =
  "HttpStatus" | "Timeout" | "ConnectionFailed" | "PrivateTarget" | "EndpointDisabled" | "Internal";

/** One entry of an endpoint's delivery log. */
export const WebhookAttemptSchema = v.object({
  id: v.string(),
  endpointId: v.string(),
  /** The `webhook-id` (same on every attempt of a delivery). */
  messageId: v.string(),
  eventType: v.string(),
  attempt: v.number(),
  /** `Event` (fan-out or retry), `Replay` or `Test`. */
  trigger: v.string(),
  attemptedAt: v.string(),
  succeeded: v.boolean(),
  httpStatus: v.nullable(v.number()),
  latencyMs: v.nullable(v.number()),
  /** The first bytes of the receiver's answer (at most 1 KiB). */
  responseBody: v.nullable(v.string()),
  errorKind: v.nullable(v.string()),
  errorMessage: v.nullable(v.string()),
  /** When the next attempt is due; null when this one succeeded or was the last. */
  nextAttemptAt: v.nullable(v.string()),
});
export type WebhookAttempt = v.InferOutput<typeof WebhookAttemptSchema>;

/** `POST /webhook-endpoints/{id}/replay`: one event (`eventId`) or every event since a time (`since`). */
export const ReplayRequestSchema = v.union([
  v.strictObject({ eventId: v.pipe(v.string(), v.minLength(1), v.maxLength(64)) }),
  v.strictObject({
    since: v.pipe(v.string(), v.isoTimestamp("Must be an ISO 8601 date-time, e.g. 2026-01-01T00:00:00Z.")),
  }),
]);
export type ReplayRequest = v.InferOutput<typeof ReplayRequestSchema>;

export const ReplayResultSchema = v.object({
  /** Deliveries queued by this request. */
  replayed: v.number(),
  /** Set when more events remain: send `since` = this value to continue. */
  continueFrom: v.nullable(v.string()),
});
export type ReplayResult = v.InferOutput<typeof ReplayResultSchema>;

export const PingResultSchema = v.object({ messageId: v.string() });

const attemptsResource: ListResource<WebhookAttempt> = {
  name: "webhook attempts",
  fields: {
    messageId: { get: (a) => a.messageId, kind: "string", filter: true },
    eventType: { get: (a) => a.eventType, kind: "string", filter: true },
    succeeded: { get: (a) => a.succeeded, kind: "boolean", filter: true },
    errorKind: { get: (a) => a.errorKind, kind: "string", filter: true },
    httpStatus: { get: (a) => a.httpStatus, kind: "number", filter: true, range: true },
    attemptedAt: { get: (a) => a.attemptedAt, kind: "date", sort: true, range: true },
  },
  defaultOrder: [{ field: "attemptedAt", direction: "desc" }],
  idOf: (a) => a.id,
  fromItem: (item) =>
    v.parse(
      WebhookAttemptSchema,
      Object.fromEntries(Object.keys(WebhookAttemptSchema.entries).map((name) => [name, item[name] ?? null])),
    ),
  candidates: (organizationId, context) =>
    attemptsQuery(organizationId, (context as { endpointId: string }).endpointId),
  orders: {
    attemptedAt: keyOrder((organizationId, context) =>
      keys.webhookAttemptPrefix(organizationId, (context as { endpointId: string }).endpointId),
    ),
  },
};

export const ListWebhookAttemptsSchema = listQuerySchema(attemptsResource);

function attemptsQuery(organizationId: string, endpointId: string) {
  return { ...prefixQuery(keys.webhookAttemptPrefix(organizationId, endpointId)), ScanIndexForward: false };
}

export type Trigger = "Event" | "Replay" | "Test";

/** The delivery-log routes: the endpoint's attempts and test pings. */

/** `POST /webhook-endpoints/{id}/test`: a signed `webhook.test` message, sent even to a disabled endpoint. */
export async function ping(actor: Actor, endpointId: string): Promise<{ messageId: string }> {
  if (!(await WebhookEndpoints.stored(actor.organizationId, endpointId)))
    throw new NotFoundError("Webhook endpoint", endpointId);
  const messageId = `msg_${newId()}`;
  const payload: WebhookPayload = {
    id: messageId,
    type: pingEventType,
    timestamp: nowIso(),
    data: { endpointId, message: `Test delivery requested by ${actor.displayName}.` },
    event: null,
  };
  const queued = await createDelivery(actor.organizationId, endpointId, payload, "Test");
  await publishAll([{ envelope: queued! }]);
  return { messageId };
}

/** `POST /webhook-endpoints/{id}/attempts/all/my`: the endpoint's delivery log, newest first. */
export async function attempts(actor: Actor, endpointId: string, query: PagingQuery): Promise<Page<WebhookAttempt>> {
  if (!(await WebhookEndpoints.stored(actor.organizationId, endpointId)))
    throw new NotFoundError("Webhook endpoint", endpointId);
  return listPage(attemptsResource, actor.organizationId, query, { endpointId });
}

/**
 * Stores a delivery (a fan-out creates it once; a replay or ping starts a new round of it) and answers the message of
 * its first attempt, or nothing when the fan-out already created it and its first attempt has been claimed.
 */
export async function createDelivery(
  organizationId: string,
  endpointId: string,
  payload: WebhookPayload,
  trigger: Trigger,
): Promise<Envelope | undefined> {
  const now = nowIso();
  const delivery = { organizationId, endpointId, messageId: payload.id };
  // A fan-out stores it once; its queue message may be published again until the first attempt is claimed.
  const condition =
    trigger === "Event"
      ? where.any(where.new(), where.all(where.equals("status", "Pending"), where.equals("attempts", 0)))
      : undefined;
  const created = await conditionally(
    table.update({
      ...WebhookDeliveryEntity.update(
        delivery,
        {
          entity: WebhookDeliveryEntity.name,
          ...delivery,
          eventType: payload.type,
          payload: JSON.stringify(payload),
          trigger,
          status: "Pending",
          attempts: 0,
          generation: computed.increment(),
          createdAt: computed.ifAbsent(now),
          expiresAt: Math.floor(Date.now() / 1000) + retentionSeconds,
          retryDueAt: null,
        },
        { remove: ["finishedAt", "reason"], ...(condition ? { condition } : {}) },
      ),
      ReturnValues: "ALL_NEW",
    }),
  );
  return (
    created &&
    envelope(WebhookDeliver, organizationId, {
      endpointId,
      messageId: payload.id,
      generation: Number(created.Attributes!.generation),
      attempt: 1,
    })
  );
}
