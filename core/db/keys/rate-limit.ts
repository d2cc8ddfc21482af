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
