import { defineEntity } from "#core/db/entity";
import { rateLimitKeys } from "#core/db/keys/rate-limit";
import type { RateLimitPartition } from "#core/db/keys/shared";

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
