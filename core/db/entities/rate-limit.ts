import { defineEntity } from "#core/db/entity";
import { org, type Key, type RateLimitPartition } from "#core/db/keys/shared";

/** Keys of the items core/rate-limit owns (docs/data-model.md). */
export const rateLimitKeys = {
  /** One item per partition: its requests per second over the rolling window, leased in blocks; TTL removes an idle one. */
  rateLimitAllowance: (partition: RateLimitPartition): Key =>
    partition.kind === "ip" || partition.kind === "user"
      ? // Not tenant data: anonymous traffic and users without an organization have none.
        { pk: `${partition.kind.toUpperCase()}#${partition.id}`, sk: "RATE" }
      : { pk: org(partition.organizationId), sk: `RATE#${partition.kind}` },
};

/**
 * The RateLimitAllowance entity (docs/data-model.md): one item per rate-limit partition (a
 * business, its intake, a user, an IP address), holding its requests per bucket over the rolling window and a
 * `version` every lease writes on condition; TTL removes an idle one. The item does not store its partition.
 */
export const RateLimitAllowanceEntity = defineEntity({
  name: "RateLimitAllowance",
  attributes: [],
  key: (partition: RateLimitPartition) => rateLimitKeys.rateLimitAllowance(partition),
  identity: (partition: RateLimitPartition) => partition,
  indexes: {},
});
