import { config } from "#core/config";
import { keys } from "#core/db/keys";
import { materialize, queryEntries, table, type Item, type QueryInput as OneQuery } from "#core/db/items";
import { indexOf } from "#core/db/indexes";
import { MergedReader, type Position } from "#core/db/merge";

/** A Query by named access pattern (core/db/indexes), paged here. */
export type QueryInput = Omit<OneQuery, "ExclusiveStartKey">;

/**
 * The read of a write-sharded list (issue 27): one Query per shard, the same but for the partition, whose entries
 * merge by the index sort key `mergeBy` (ascending when `forward`). Built by an entity (core/db/entity.ts).
 */
export interface ShardedQuery {
  shards: QueryInput[];
  mergeBy: string;
  forward: boolean;
}

/** What the readers here take: one partition's Query, or the shards of a write-sharded list. */
export type Readable = QueryInput | ShardedQuery;

export const isSharded = (readable: Readable): readable is ShardedQuery => "shards" in readable;

/** The Queries a read makes (one per shard). */
export const shardsOf = (readable: Readable): QueryInput[] => (isSharded(readable) ? readable.shards : [readable]);

/** The key attributes of an entry a query read: the table's and, on an index, the index's (a shard's position). */
export function entryKey(input: QueryInput): (entry: Item) => Record<string, unknown> {
  const index = input.index ? indexOf(input.index) : undefined;
  return (entry) => ({
    pk: entry.pk,
    sk: entry.sk,
    ...(index ? { [index.pk]: entry[index.pk], [index.sk]: entry[index.sk] } : {}),
  });
}

/** A merged reader over a read's shards (one shard: its pages in order), each from its `start` position. */
export function readerOf(readable: Readable, start: readonly Position[]): MergedReader {
  const shards = shardsOf(readable);
  const sharded = isSharded(readable);
  const mergeBy = sharded ? readable.mergeBy : "sk";
  return new MergedReader(
    async (shard, after, limit) => {
      const { where: _where, ...input } = shards[shard]!;
      const page = await queryEntries({ ...input, ExclusiveStartKey: after, Limit: limit });
      const entries = page.Items ?? [];
      return { entries, scanned: page.ScannedCount ?? entries.length, lastKey: page.LastEvaluatedKey };
    },
    { mergeBy, forward: sharded ? readable.forward : true },
    start,
  );
}

/**
 * Items of a read in its order, kept by `accept`, until `pageSize` are kept and one more kept item shows the read
 * goes on, the read ends, or `budget` entries are read: the items, and where each shard stands after the last kept
 * item (every shard `false` at the end). A shard is read at most `fetchLimit` entries per round trip; entries of a
 * KEYS_ONLY index are fetched from the table only as they are taken, a page at a time.
 */
export async function readInOrder(
  readable: Readable,
  options: {
    pageSize: number;
    budget: number;
    fetchLimit: number;
    start?: readonly Position[];
    accept?: (item: Item) => boolean;
    keyOf?: (entry: Item) => Record<string, unknown>;
  },
): Promise<{ items: Item[]; positions: Position[] }> {
  const shards = shardsOf(readable);
  const start = options.start ?? shards.map(() => null);
  const keyOf = options.keyOf ?? entryKey(shards[0]!);
  const reader = readerOf(readable, start);
  const handled = [...start];
  const items: Item[] = [];
  let round = 0;
  for (;;) {
    const taken: { entry: Item; shard: number }[] = [];
    let stopped = false;
    // Entries are fetched from the table a batch at a time: first the rest of the page (and one more), or a read
    // chunk when that is larger; then, for a sparse filter's scan, all the budget allows at once (fetched in
    // parallel), so a budget of 500 is two rounds of BatchGetItems, not ten.
    const batch = Math.max(
      options.pageSize + 1 - items.length,
      round++ === 0 ? Math.min(options.fetchLimit, options.budget) : options.budget,
    );
    while (taken.length < batch) {
      const next = await reader.next(options.fetchLimit, options.budget);
      if (next === undefined || next === "budget") {
        stopped = true;
        break;
      }
      taken.push(next);
    }
    const stored = await materialize(
      shards[0]!,
      taken.map(({ entry }) => entry),
    );
    for (const [position, { entry, shard }] of taken.entries()) {
      const item = stored[position];
      if (item && (!options.accept || options.accept(item))) {
        if (items.length === options.pageSize) {
          const pending = shards.map((_, index) => taken.slice(position).filter((next) => next.shard === index).length);
          return { items, positions: reader.positions(handled, pending) };
        }
        items.push(item);
      }
      handled[shard] = keyOf(entry);
    }
    if (stopped) return { items, positions: reader.positions(handled) };
  }
}

/** Whether positions leave anything to read (a continuation token is due). */
export const readsOn = (positions: readonly Position[]) => positions.some((position) => position !== false);

/**
 * Every page of a Query, one at a time (DynamoDB returns at most 1 MB per call); of a sharded read, merged, each
 * page the items kept of at most `Limit` (default 1,000) entries read, as one Query's page is.
 */
export async function* queryPages(readable: Readable): AsyncGenerator<Record<string, unknown>[]> {
  if (isSharded(readable)) {
    const pageSize = readable.shards[0]!.Limit ?? 1000;
    let start: Position[] | undefined;
    do {
      const page = await readInOrder(readable, {
        pageSize,
        budget: pageSize,
        fetchLimit: pageSize,
        ...(start ? { start } : {}),
      });
      yield page.items;
      start = page.positions;
    } while (readsOn(start));
    return;
  }
  const input = readable;
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await table.query({ ...input, ExclusiveStartKey: startKey });
    yield page.Items ?? [];
    startKey = page.LastEvaluatedKey;
  } while (startKey);
}

/** Every item a Query matches, across pages. For bounded collections only: it holds them all in memory. */
export async function queryAll(readable: Readable): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  for await (const page of queryPages(readable)) items.push(...page);
  return items;
}

/**
 * How many items a Query matches, evaluating at most `limit` of them (DynamoDB
 * still reads each one it counts); `more` when items beyond that were not evaluated.
 */
export async function queryCount(readable: Readable, limit: number): Promise<{ count: number; more: boolean }> {
  if (isSharded(readable)) {
    // Each shard counts its share of the limit (the shares add up to it): the sum is exact under it, a lower
    // bound (`more`) past it.
    const count = readable.shards.length;
    const share = (index: number) => Math.floor(limit / count) + (index < limit % count ? 1 : 0);
    const counts = await Promise.all(
      readable.shards.map((shard, index) =>
        share(index) > 0 ? queryCount(shard, share(index)) : Promise.resolve({ count: 0, more: true }),
      ),
    );
    return { count: counts.reduce((sum, next) => sum + next.count, 0), more: counts.some((next) => next.more) };
  }
  const input = readable;
  let count = 0;
  let evaluated = 0;
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await table.query({
      ...input,
      Select: "COUNT",
      ExclusiveStartKey: startKey,
      Limit: limit - evaluated,
    });
    count += page.Count ?? 0;
    evaluated += page.ScannedCount ?? page.Count ?? 0;
    startKey = page.LastEvaluatedKey;
  } while (startKey && evaluated < limit);
  return { count, more: startKey !== undefined && (await goesOn(input, startKey)) };
}

/**
 * The first `limit` items a Query evaluates (Limit counts items read, before any
 * filter expression); `more` when the query goes on past them (DynamoDB returns
 * a key whenever Limit is reached, so that is checked by reading one more key).
 */
export async function queryUpTo(
  readable: Readable,
  limit: number,
): Promise<{ items: Record<string, unknown>[]; more: boolean }> {
  if (isSharded(readable)) {
    const { items, positions } = await readInOrder(readable, { pageSize: limit, budget: limit, fetchLimit: limit });
    return { items, more: readsOn(positions) };
  }
  const input = readable;
  const items: Record<string, unknown>[] = [];
  let evaluated = 0;
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await table.query({ ...input, ExclusiveStartKey: startKey, Limit: limit - evaluated });
    items.push(...(page.Items ?? []));
    evaluated += page.ScannedCount ?? page.Items?.length ?? 0;
    startKey = page.LastEvaluatedKey;
  } while (startKey && evaluated < limit);
  return { items, more: startKey !== undefined && (await goesOn(input, startKey)) };
}

/** Whether a Query has items after `startKey` (a LastEvaluatedKey may stand at the very end): reads one key. */
async function goesOn(input: QueryInput, startKey: Record<string, unknown>): Promise<boolean> {
  const probe = await table.query({ ...input, ExclusiveStartKey: startKey, Limit: 1, Select: "COUNT" });
  return (probe.ScannedCount ?? probe.Count ?? 0) > 0;
}

/** Items of the organization's partition whose sort key lies in [lower, upper]. */
export function organizationRange(
  organizationId: string,
  lower: string,
  upper: string,
  extra: Omit<QueryInput, "KeyConditionExpression"> = {},
) {
  return queryAll({
    ...extra,
    KeyConditionExpression: "pk = :pk AND sk BETWEEN :lower AND :upper",
    ExpressionAttributeValues: {
      ...extra.ExpressionAttributeValues,
      ":pk": keys.organization(organizationId).pk,
      ":lower": lower,
      ":upper": upper,
    },
  });
}

/**
 * Every item of the organization whose sort key starts with `prefix`, as a key
 * range (`BETWEEN prefix AND prefix~`): DynamoDB Local answers `begins_with` by
 * scanning the partition, which an organization with 100 000 leads makes slow.
 */
export function prefixItems(
  organizationId: string,
  prefix: string,
  extra: Omit<QueryInput, "KeyConditionExpression"> = {},
) {
  return organizationRange(organizationId, prefix, `${prefix}~`, extra);
}

/**
 * Items one list request reads at most, for its page and again for its count (`LIST_SCAN_BUDGET` overrides it;
 * docs/decisions.md): a small multiple of the page size, with a floor so small pages of sparse filters still
 * progress. Here, not in list.ts, for a reader bounded like a list without the list machinery (the A2A task store).
 */
export function readBudget(pageSize: number): number {
  return config.listScanBudget ?? Math.max(4 * pageSize, minimumReadBudget);
}
export const minimumReadBudget = 500;
