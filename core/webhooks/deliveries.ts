import { WebhookDeliver } from "#core/webhooks/queue";
import type { DeliverMessage } from "#core/webhooks/queue";
export type { DeliverMessage };
import type { Actor } from "#core/auth/actor";
import { conditionally, table } from "#core/db/items";
import { dueEntries } from "#core/db/due";
import { createdWithin, entities, keys } from "#core/db/keys";
import { NotFoundError, ValidationError } from "#core/errors";
import { toEventRecord, Events } from "#core/events/index";
import { envelope, publishAll, type Envelope } from "#core/queue/events";
import { nowIso } from "#core/shared/ids";
import { pingEventType, webhookTypeOf } from "#core/webhooks/catalogue";
import { retryScheduleSeconds, webhooksConfig } from "#core/webhooks/config";
import { WebhookEndpoints, type StoredEndpoint } from "#core/webhooks/endpoints";
import { createDelivery, WebhookDeliveryLog, type ReplayRequest, type ReplayResult, type Trigger } from "#core/webhooks/delivery-log";
import type { WebhookPayload } from "#core/webhooks/payloads";

export {
  ListWebhookAttemptsSchema,
  PingResultSchema,
  ReplayRequestSchema,
  ReplayResultSchema,
  retentionSeconds,
  WebhookAttemptSchema,
  type AttemptErrorKind,
  type ReplayRequest,
  type ReplayResult,
  type Trigger,
  type WebhookAttempt,
} from "#core/webhooks/delivery-log";

// Building payloads reads every kind of resource and sending carries undici: the replay route and the consumers
// load them on first use, so neither is evaluated at cold start.
const payloads = () => import("#core/webhooks/payloads");
const sending = () => import("#core/webhooks/send");

/** One attempt to send one message to one endpoint; redelivered queue messages of the same attempt are recognised. */
export const maxAttempts = retryScheduleSeconds.length + 1;
/** A claimed attempt older than this is taken over by a redelivered message (the worker died mid-send). */
const leaseMs = webhooksConfig.attemptTimeoutMs * 3;
/** Retries re-published with an SQS delay are also in the due index this much later, in case the message is lost. */
const backstopMs = 5 * 60 * 1000;
/** Events one "replay since" request re-sends; the answer says where to continue. */
const replayBatch = 500;
const dueShards = [0, 1, 2, 3] as const;


/** Webhook deliveries: fan-out from recorded events, signed sends with retries, replay, test pings and the delivery log. */
export const WebhookDeliveries = {
  ...WebhookDeliveryLog,

  /**
   * New table items from the stream (events, and leads for `lead.received`) become one delivery per enabled endpoint
   * that takes their type. Safe to run again on the same items: a delivery already sent is not sent again.
   */
  async fanOut(items: Record<string, unknown>[]): Promise<void> {
    const byOrganization = new Map<string, Record<string, unknown>[]>();
    for (const item of items) {
      const organizationId = String(item.organizationId ?? "");
      byOrganization.set(organizationId, [...(byOrganization.get(organizationId) ?? []), item]);
    }
    const messages: Envelope[] = [];
    for (const [organizationId, organizationItems] of byOrganization) {
      if (!organizationId) continue;
      const endpoints = (await WebhookEndpoints.all(organizationId)).filter((endpoint) => endpoint.enabled);
      if (endpoints.length === 0) continue;
      for (const item of organizationItems) {
        const payload = await payloadOfItem(organizationId, item, endpoints);
        if (!payload) continue;
        for (const endpoint of endpoints) {
          if (payload.type !== pingEventType && !WebhookEndpoints.accepts(endpoint, payload.type)) continue;
          const queued = await createDelivery(organizationId, endpoint.id, payload, "Event");
          if (queued) messages.push(queued);
        }
      }
    }
    await publishInParallel(messages);
  },

  /** One attempt: claim it, send it signed, log it, then finish the delivery or schedule the next attempt. */
  async deliver(organizationId: string, message: DeliverMessage): Promise<void> {
    const delivery = await claim(organizationId, message);
    if (!delivery) return;
    const endpoint = await WebhookEndpoints.stored(organizationId, message.endpointId);
    const payload = String(delivery.payload);
    const eventType = String(delivery.eventType);
    const trigger = String(delivery.trigger) as Trigger;
    if (!endpoint) return void (await finish(organizationId, message, "Failed", "The endpoint was deleted."));
    if (!endpoint.enabled && trigger !== "Test") {
      const { logAttempt } = await sending();
      await logAttempt(organizationId, message, { eventType, trigger, succeeded: false, errorKind: "EndpointDisabled", errorMessage: "The endpoint is disabled; replay once it is re-enabled." });
      return void (await finish(organizationId, message, "Failed", "The endpoint is disabled."));
    }
    const { send, logAttempt } = await sending();
    const outcome = await send(endpoint, message.messageId, payload);
    const attemptedAt = nowIso();
    if (outcome.succeeded) {
      await logAttempt(organizationId, message, { eventType, trigger, ...outcome });
      await WebhookEndpoints.recordSuccess(organizationId, endpoint, attemptedAt);
      return void (await finish(organizationId, message, "Delivered"));
    }
    const disabled = await WebhookEndpoints.recordFailure(organizationId, endpoint.id, attemptedAt, outcome.httpStatus === 410);
    const retryAt = !disabled && message.attempt < maxAttempts ? new Date(Date.now() + retryDelayMs(message.attempt)) : undefined;
    await logAttempt(organizationId, message, { eventType, trigger, ...outcome, nextAttemptAt: retryAt?.toISOString() ?? null });
    if (!retryAt) return void (await finish(organizationId, message, "Failed", disabled ? "The endpoint was disabled." : `No success after ${message.attempt} attempts.`));
    await scheduleRetry(organizationId, { ...message, attempt: message.attempt + 1 }, retryAt);
  },

  /** The queue gave up on a message (it kept failing inside our own code): the attempt is logged as failed, the delivery ends. */
  async abandon(organizationId: string, message: DeliverMessage, error: unknown): Promise<void> {
    const { Item } = await table.get({ Key: keys.webhookDelivery(organizationId, message.endpointId, message.messageId) });
    if (!Item || Item.status !== "Pending" || Item.generation !== message.generation) return;
    const { logAttempt } = await sending();
    await logAttempt(organizationId, message, {
      eventType: String(Item.eventType),
      trigger: String(Item.trigger) as Trigger,
      succeeded: false,
      errorKind: "Internal",
      errorMessage: `Delivery gave up: ${error instanceof Error ? error.message : String(error)}`.slice(0, 500),
    });
    // The attempt that last claimed it (the given one, or the previous one when the given one never got claimed).
    await finish(organizationId, { ...message, attempt: Number(Item.attempts) }, "Failed", "Internal error.");
  },

  /**
   * Schedule: retries whose time has come (long waits, or a lost delayed message) are published again; the attempt's
   * claim removes the entry, so an entry still there a backstop later is published once more.
   */
  async publishDue(now = new Date(), organizationId?: string): Promise<number> {
    const messages: Envelope[] = [];
    const partitions = dueShards.map((shard) => keys.dueWebhookDelivery(shard, "", "", "", "").gsi3pk);
    for await (const entry of dueEntries(partitions, now.toISOString(), organizationId)) {
      const [endpointId = "", messageId = ""] = entry.id.split(":");
      // Claimed by moving the entry a backstop later (not removing it): if the publish below is lost, it fires again.
      const later = keys.dueWebhookDelivery(0, new Date(now.getTime() + backstopMs).toISOString(), entry.organizationId, endpointId, messageId).gsi3sk;
      const claimed = await conditionally(
        table.update({
          Key: keys.webhookDelivery(entry.organizationId, endpointId, messageId),
          UpdateExpression: "SET gsi3sk = :later",
          ConditionExpression: "gsi3sk = :seen",
          ExpressionAttributeValues: { ":seen": entry.seen, ":later": later },
          ReturnValues: "ALL_NEW",
        }),
      );
      if (!claimed) continue;
      const { generation, nextAttempt } = claimed.Attributes!;
      messages.push(envelope(WebhookDeliver, entry.organizationId, { endpointId, messageId, generation: Number(generation), attempt: Number(nextAttempt) }));
    }
    await publishAll(messages.map((message) => ({ envelope: message })));
    return messages.length;
  },

  /** `POST /webhook-endpoints/{id}/replay`. */
  async replay(actor: Actor, endpointId: string, request: ReplayRequest): Promise<ReplayResult> {
    const endpoint = await WebhookEndpoints.stored(actor.organizationId, endpointId);
    if (!endpoint) throw new NotFoundError("Webhook endpoint", endpointId);
    if ("eventId" in request) {
      const event = await Events.find(actor.organizationId, request.eventId);
      if (!event) throw new NotFoundError("Event", request.eventId);
      const type = webhookTypeOf(event.eventType);
      if (!type) throw new ValidationError("This event type is not delivered by webhooks.", [{ pointer: "/eventId", detail: `${event.eventType} has no webhook type (GET /webhook-event-types).` }]);
      const { eventPayload } = await payloads();
      const queued = await createDelivery(actor.organizationId, endpointId, await eventPayload(actor.organizationId, type, event), "Replay");
      await publishAll([{ envelope: queued! }]);
      return { replayed: 1, continueFrom: null };
    }
    return replaySince(actor.organizationId, endpoint, request.since);
  },

};

/** Publishes SQS batches of ten side by side (a fan-out of a full stream batch is hundreds of messages). */
async function publishInParallel(messages: Envelope[]): Promise<void> {
  const chunks = Array.from({ length: Math.ceil(messages.length / 10) }, (_, index) => messages.slice(index * 10, index * 10 + 10));
  await Promise.all(chunks.map((chunk) => publishAll(chunk.map((message) => ({ envelope: message })))));
}

/** Backoff with ±20 % jitter: the stage's scale times the schedule's delay after `attempt`. */
function retryDelayMs(attempt: number): number {
  const base = retryScheduleSeconds[Math.min(attempt, retryScheduleSeconds.length) - 1]! * 1000 * webhooksConfig.retryScale;
  return Math.round(base * (0.8 + Math.random() * 0.4));
}

async function payloadOfItem(organizationId: string, item: Record<string, unknown>, endpoints: StoredEndpoint[]): Promise<WebhookPayload | undefined> {
  const { eventPayload, leadReceivedPayload, toLead } = await payloads();
  if (item.entity === entities.lead) {
    return endpoints.some((endpoint) => WebhookEndpoints.accepts(endpoint, "lead.received")) ? leadReceivedPayload(toLead(item)) : undefined;
  }
  if (item.entity !== entities.event) return undefined;
  const event = toEventRecord(item);
  const type = webhookTypeOf(event.eventType);
  if (!type || !endpoints.some((endpoint) => WebhookEndpoints.accepts(endpoint, type))) return undefined;
  return eventPayload(organizationId, type, event);
}


/** Claims attempt `n` of the delivery's current round: once, unless the worker that claimed it died (lease expired). */
async function claim(organizationId: string, message: DeliverMessage): Promise<Record<string, unknown> | undefined> {
  const now = Date.now();
  const claimed = await conditionally(
    table.update({
      Key: keys.webhookDelivery(organizationId, message.endpointId, message.messageId),
      UpdateExpression: "SET attempts = :attempt, leaseUntil = :lease REMOVE gsi3pk, gsi3sk",
      ConditionExpression: "#status = :pending AND generation = :generation AND (attempts < :attempt OR (attempts = :attempt AND leaseUntil < :now))",
      ExpressionAttributeNames: { "#status": "status" },
      ExpressionAttributeValues: { ":pending": "Pending", ":generation": message.generation, ":attempt": message.attempt, ":lease": now + leaseMs, ":now": now },
      ReturnValues: "ALL_NEW",
    }),
  );
  return claimed?.Attributes;
}

async function finish(organizationId: string, message: DeliverMessage, status: "Delivered" | "Failed", reason?: string): Promise<void> {
  // No write when a replay started a new round meanwhile: that round decides.
  await conditionally(
    table.update({
      Key: keys.webhookDelivery(organizationId, message.endpointId, message.messageId),
      UpdateExpression: `SET #status = :status, finishedAt = :now${reason ? ", reason = :reason" : ""} REMOVE leaseUntil, gsi3pk, gsi3sk`,
      ConditionExpression: "generation = :generation AND attempts = :attempt",
      ExpressionAttributeNames: { "#status": "status" },
      ExpressionAttributeValues: { ":status": status, ":now": nowIso(), ":generation": message.generation, ":attempt": message.attempt, ...(reason ? { ":reason": reason } : {}) },
    }),
  );
}

/**
 * The next attempt is in the due index (at its time when further than an SQS delay allows, else as a backstop a
 * few minutes later) before a short wait is published with a delay, so a lost message still gets its retry.
 */
async function scheduleRetry(organizationId: string, next: DeliverMessage, at: Date): Promise<void> {
  const delayMs = at.getTime() - Date.now();
  const viaQueue = delayMs <= 900_000;
  const dueAt = new Date(viaQueue ? at.getTime() + backstopMs : at.getTime()).toISOString();
  const shard = parseInt(next.messageId.slice(-1), 36) % dueShards.length || 0;
  const due = keys.dueWebhookDelivery(shard, dueAt, organizationId, next.endpointId, next.messageId);
  await table.update({
    Key: keys.webhookDelivery(organizationId, next.endpointId, next.messageId),
    UpdateExpression: "SET gsi3pk = :gsi3pk, gsi3sk = :gsi3sk, nextAttempt = :attempt, nextAttemptAt = :at",
    ExpressionAttributeValues: { ":gsi3pk": due.gsi3pk, ":gsi3sk": due.gsi3sk, ":attempt": next.attempt, ":at": at.toISOString() },
  });
  if (viaQueue) await publishAll([{ envelope: envelope(WebhookDeliver, organizationId, next), delaySeconds: Math.floor(delayMs / 1000) }]);
}

async function replaySince(organizationId: string, endpoint: StoredEndpoint, since: string): Promise<ReplayResult> {
  const messages: Envelope[] = [];
  let continueFrom: string | null = null;
  let last: string | undefined;
  const { eventPayload } = await payloads();
  scan: for await (const events of Events.createdWithin(organizationId, Date.parse(since), Date.now())) {
    for (const event of events) {
      const type = webhookTypeOf(event.eventType);
      if (!type || (endpoint.enabledEventTypes !== "all" && !endpoint.enabledEventTypes.includes(type))) continue;
      if (messages.length === replayBatch) {
        // Events of the same millisecond as the last one sent are sent again by the next request (same webhook-id).
        continueFrom = last ?? event.createdAt;
        break scan;
      }
      const queued = await createDelivery(organizationId, endpoint.id, await eventPayload(organizationId, type, event), "Replay");
      if (queued) messages.push(queued);
      last = event.createdAt;
    }
  }
  await publishAll(messages.map((message) => ({ envelope: message })));
  return { replayed: messages.length, continueFrom };
}

