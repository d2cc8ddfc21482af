import { conditionally, table } from "#core/db/items";
import { dueEntries } from "#core/db/due";
import { retryShards, WebhookDeliveryEntity } from "#core/db/entities/webhooks";
import { envelope, publishAll, type Envelope } from "#core/queue/messages";
import { WebhookDeliver } from "#core/webhooks/queue";

// The schedule only re-publishes due retries: apart from attempt.ts, so it bundles neither sending nor payloads.

/** Retries re-published with an SQS delay are also in the due index this much later, in case the message is lost. */
export const backstopMs = 5 * 60 * 1000;

/** The schedule of webhook retries. */

/**
 * Schedule: retries whose time has come (long waits, or a lost delayed message) are published again; the attempt's
 * claim removes the entry, so an entry still there a backstop later is published once more.
 */
export async function publishDue(now = new Date(), organizationId?: string): Promise<number> {
  const messages: Envelope[] = [];
  const partitions = retryShards.map((shard) => WebhookDeliveryEntity.partitionKey("retryDue", { shard }));
  for await (const entry of dueEntries(partitions, now.toISOString(), organizationId)) {
    const [endpointId = "", messageId = ""] = entry.id.split(":");
    // Claimed by moving the entry a backstop later (not removing it): if the publish below is lost, it fires again.
    const delivery = { organizationId: entry.organizationId, endpointId, messageId };
    const claimed = await conditionally(
      table.update({
        ...WebhookDeliveryEntity.update(
          delivery,
          { retryDueAt: new Date(now.getTime() + backstopMs).toISOString() },
          { condition: WebhookDeliveryEntity.indexedAt("retryDue", entry.seen) },
        ),
        ReturnValues: "ALL_NEW",
      }),
    );
    if (!claimed) continue;
    const { generation, nextAttempt } = claimed.Attributes!;
    messages.push(
      envelope(WebhookDeliver, entry.organizationId, {
        endpointId,
        messageId,
        generation: Number(generation),
        attempt: Number(nextAttempt),
      }),
    );
  }
  await publishAll(messages.map((message) => ({ envelope: message })));
  return messages.length;
}
