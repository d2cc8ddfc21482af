import { dueWorkShardOf, dueWorkShards } from "#core/db/due";
import { defineEntity } from "#core/db/entity";
import { ownedEntity } from "#core/db/entities/owned";
import { webhooksKeys } from "#core/db/keys/webhooks";

/**
 * The WebhookEndpoint entity (docs/data-model.md): one item per endpoint under its organization, holding its signing
 * secrets and delivery health. It has no secondary index: the fan-out and the list read the organization's endpoints
 * by key prefix (at most `maxEndpoints`).
 */
export const WebhookEndpointEntity = ownedEntity("WebhookEndpoint", webhooksKeys.webhookEndpoint);

/** A stored delivery: one webhook message to one endpoint, and when its retry is due in the index (absent: not). */
export type StoredDelivery = {
  organizationId: string;
  endpointId: string;
  messageId: string;
  /** When the schedule re-publishes the next attempt (its time, or a backstop after a delayed queue message). */
  retryDueAt?: string | null;
} & Record<string, unknown>;

/** Shards of the retry schedule's index, picked by message id (core/db/due.ts). */
export const retryShards = dueWorkShards;

/**
 * The WebhookDelivery entity: one item per message and endpoint. While a retry waits (`retryDueAt`), the delivery
 * is in the sparse `retryDue` index the schedule reads; setting `retryDueAt` to null takes it out.
 */
export const WebhookDeliveryEntity = defineEntity({
  name: "WebhookDelivery",
  attributes: [],
  key: ({
    organizationId,
    endpointId,
    messageId,
  }: Pick<StoredDelivery, "organizationId" | "endpointId" | "messageId">) =>
    webhooksKeys.webhookDelivery(organizationId, endpointId, messageId),
  identity: ({ organizationId, endpointId, messageId }: StoredDelivery) => ({ organizationId, endpointId, messageId }),
  indexes: {
    /**
     * Deliveries whose retry is due (not tenant data: the retry schedule's operator index across organizations,
     * sharded). The id part of the sort key is `<endpointId>:<messageId>`.
     */
    retryDue: {
      index: "dueWork",
      pk: (delivery: StoredDelivery & { shard?: number }) =>
        `DUEWEBHOOKS#${delivery.shard ?? dueWorkShardOf(delivery.messageId)}`,
      sk: (delivery: StoredDelivery) =>
        `${delivery.retryDueAt}#${delivery.organizationId}#${delivery.endpointId}:${delivery.messageId}`,
      composites: ["retryDueAt"],
      when: (delivery: StoredDelivery) => Boolean(delivery.retryDueAt),
    },
  },
});
