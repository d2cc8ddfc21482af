import { org, type Key, type RateLimitPartition } from "#core/db/keys/shared";

/** Keys of the items core/rate-limit owns (docs/data-model.md). */
export const rateLimitKeys = {
  /** Fixed 60 s windows; the item expires by TTL soon after its window. */
  rateLimitWindow: (partition: RateLimitPartition, windowStart: number): Key =>
    partition.kind === "ip" || partition.kind === "user"
      ? // Not tenant data: anonymous traffic and users without an organization have none.
        { pk: `${partition.kind.toUpperCase()}#${partition.id}`, sk: `RATE#${windowStart}` }
      : { pk: org(partition.organizationId), sk: `RATE#${partition.kind}#${windowStart}` },
};
