import { shardOf } from "#core/db/entity";
import { queryPages } from "#core/db/query";

/**
 * Shards of each due-work index every organization shares (messages, calls, runs, holds, webhook retries): an entry
 * goes to the shard of its item's id, and each sweep reads every shard. 64, because at the scale goal (docs/scale.md)
 * the hottest, due messages, took ~23,000–29,000 WCU/s in all: 722–905 per shard on the 32 it had, too close to
 * DynamoDB's 1,000 WCU/s per partition key; on 64, about half that. A sweep pays 64 small queries a run (a minute).
 * Raising the count moves nothing: an entry keeps the shard it was written to until it is written again, and every
 * shard below the count is read (lowering it would strand the entries above).
 */
export const DUE_WORK_SHARDS = 64;
export const dueWorkShards: readonly number[] = Array.from({ length: DUE_WORK_SHARDS }, (_, shard) => shard);

/** The due-work shard of an item, from its id (a stable hash: the same id always lands on the same shard). */
export const dueWorkShardOf = (id: string): number => shardOf(id, DUE_WORK_SHARDS);

/** One entry of a sharded due index (gsi3 sort key `<dueAt>#<org>#<id>`). */
export type DueEntry = {
  item: Record<string, unknown>;
  seen: string;
  dueAt: string;
  organizationId: string;
  id: string;
  /** Every part of the sort key after the organization: `[id]`, or an id under its parent's (`[automation, run]`). */
  ids: string[];
};

/**
 * The entries of a sharded due index (gsi3) due up to `upTo` (ISO time), one
 * partition after the other, oldest first in each; `organizationId` keeps one
 * organization's (sweeps that tests run with a moved clock). `seen` (the sort
 * key read) is what a sweep's conditional claim names.
 */
export async function* dueEntries(
  partitions: readonly string[],
  upTo: string,
  organizationId?: string,
): AsyncGenerator<DueEntry> {
  for (const gsi3pk of partitions) {
    const pages = queryPages({
      index: "dueWork",
      KeyConditionExpression: "gsi3pk = :pk AND gsi3sk <= :upper",
      ExpressionAttributeValues: { ":pk": gsi3pk, ":upper": `${upTo}#~` },
    });
    for await (const items of pages) {
      for (const item of items) {
        const seen = String(item.gsi3sk);
        const [dueAt = "", org = "", ...ids] = seen.split("#");
        if (organizationId && org !== organizationId) continue;
        yield { item, seen, dueAt, organizationId: org, id: ids[0] ?? "", ids };
      }
    }
  }
}
