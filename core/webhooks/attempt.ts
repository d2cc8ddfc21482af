import { WebhookDeliveryEntity, type StoredDelivery } from "#core/db/entities/webhooks";
import { where } from "#core/db/expression";
import { conditionally, table } from "#core/db/items";
import { envelope, publishAll } from "#core/queue/messages";
import { nowIso } from "#core/shared/ids";
import { retryScheduleSeconds, webhooksConfig } from "#core/webhooks/config";
import type { Trigger } from "#core/webhooks/delivery-log";
import { backstopMs } from "#core/webhooks/due-retries";
import * as WebhookEndpoints from "#core/webhooks/endpoints";
import { WebhookDeliver, type DeliverMessage } from "#core/webhooks/queue";
import { logAttempt, send } from "#core/webhooks/send";

// The delivery consumer sends a stored payload (through the pinned egress) and never builds one: apart from fan-out.ts.

/** One attempt to send one message to one endpoint; redelivered queue messages of the same attempt are recognised. */
export const maxAttempts = retryScheduleSeconds.length + 1;
/** A claimed attempt older than this is taken over by a redelivered message (the worker died mid-send). */
const leaseMs = webhooksConfig.attemptTimeoutMs * 3;

/** Attempts of deliveries, one per queue message. */

/** One attempt: claim it, send it signed, log it, then finish the delivery or schedule the next attempt. */
export async function deliver(organizationId: string, message: DeliverMessage): Promise<void> {
  const delivery = await claim(organizationId, message);
  if (!delivery) return;
  const endpoint = await WebhookEndpoints.stored(organizationId, message.endpointId);
  const payload = String(delivery.payload);
  const eventType = String(delivery.eventType);
  const trigger = String(delivery.trigger) as Trigger;
  if (!endpoint) return void (await finish(organizationId, message, "Failed", "The endpoint was deleted."));
  if (!endpoint.enabled && trigger !== "Test") {
    await logAttempt(organizationId, message, {
      eventType,
      trigger,
      succeeded: false,
      errorKind: "EndpointDisabled",
      errorMessage: "The endpoint is disabled; replay once it is re-enabled.",
    });
    return void (await finish(organizationId, message, "Failed", "The endpoint is disabled."));
  }
  const outcome = await send(endpoint, message.messageId, payload);
  const attemptedAt = nowIso();
  if (outcome.succeeded) {
    await logAttempt(organizationId, message, { eventType, trigger, ...outcome });
    await WebhookEndpoints.recordSuccess(organizationId, endpoint, attemptedAt);
    return void (await finish(organizationId, message, "Delivered"));
  }
  const disabled = await WebhookEndpoints.recordFailure(
    organizationId,
    endpoint.id,
    attemptedAt,
    outcome.httpStatus === 410,
  );
  const retryAt =
    !disabled && message.attempt < maxAttempts ? new Date(Date.now() + retryDelayMs(message.attempt)) : undefined;
  await logAttempt(organizationId, message, {
    eventType,
    trigger,
    ...outcome,
    nextAttemptAt: retryAt?.toISOString() ?? null,
  });
  if (!retryAt)
    return void (await finish(
      organizationId,
      message,
      "Failed",
      disabled ? "The endpoint was disabled." : `No success after ${message.attempt} attempts.`,
    ));
  await scheduleRetry(organizationId, { ...message, attempt: message.attempt + 1 }, retryAt);
}

/** The queue gave up on a message (it kept failing inside our own code): the attempt is logged as failed, the delivery ends. */
export async function abandon(organizationId: string, message: DeliverMessage, error: unknown): Promise<void> {
  const Item = await WebhookDeliveryEntity.get(deliveryOf(organizationId, message));
  if (!Item || Item.status !== "Pending" || Item.generation !== message.generation) return;
  await logAttempt(organizationId, message, {
    eventType: String(Item.eventType),
    trigger: String(Item.trigger) as Trigger,
    succeeded: false,
    errorKind: "Internal",
    errorMessage: `Delivery gave up: ${error instanceof Error ? error.message : String(error)}`.slice(0, 500),
  });
  // The attempt that last claimed it (the given one, or the previous one when the given one never got claimed).
  await finish(organizationId, { ...message, attempt: Number(Item.attempts) }, "Failed", "Internal error.");
}

/** Backoff with ±20 % jitter: the stage's scale times the schedule's delay after `attempt`. */
function retryDelayMs(attempt: number): number {
  const base =
    retryScheduleSeconds[Math.min(attempt, retryScheduleSeconds.length) - 1]! * 1000 * webhooksConfig.retryScale;
  return Math.round(base * (0.8 + Math.random() * 0.4));
}

/** Claims attempt `n` of the delivery's current round: once, unless the worker that claimed it died (lease expired). */
async function claim(organizationId: string, message: DeliverMessage): Promise<Record<string, unknown> | undefined> {
  const now = Date.now();
  const claimed = await conditionally(
    table.update({
      // Claimed: out of the retry schedule's index (the queue message is here).
      ...WebhookDeliveryEntity.update(
        deliveryOf(organizationId, message),
        { attempts: message.attempt, leaseUntil: now + leaseMs, retryDueAt: null },
        {
          condition: where.all(
            where.equals("status", "Pending"),
            where.equals("generation", message.generation),
            where.any(
              where.before("attempts", message.attempt),
              where.all(where.equals("attempts", message.attempt), where.before("leaseUntil", now)),
            ),
          ),
        },
      ),
      ReturnValues: "ALL_NEW",
    }),
  );
  return claimed?.Attributes;
}

async function finish(
  organizationId: string,
  message: DeliverMessage,
  status: "Delivered" | "Failed",
  reason?: string,
): Promise<void> {
  // No write when a replay started a new round meanwhile: that round decides.
  await conditionally(
    table.update(
      WebhookDeliveryEntity.update(
        deliveryOf(organizationId, message),
        { status, finishedAt: nowIso(), ...(reason ? { reason } : {}), retryDueAt: null },
        {
          remove: ["leaseUntil"],
          condition: where.all(
            where.equals("generation", message.generation),
            where.equals("attempts", message.attempt),
          ),
        },
      ),
    ),
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
  await table.update(
    WebhookDeliveryEntity.update(deliveryOf(organizationId, next), {
      nextAttempt: next.attempt,
      nextAttemptAt: at.toISOString(),
      retryDueAt: dueAt,
    }),
  );
  if (viaQueue)
    await publishAll([
      { envelope: envelope(WebhookDeliver, organizationId, next), delaySeconds: Math.floor(delayMs / 1000) },
    ]);
}

/** The delivery a queue message is about. */
function deliveryOf(organizationId: string, message: DeliverMessage): StoredDelivery {
  return { organizationId, endpointId: message.endpointId, messageId: message.messageId };
}
