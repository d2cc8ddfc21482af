import { ConditionalCheckFailedException } from "@aws-sdk/client-dynamodb";
import {
  BatchGetCommand,
  BatchWriteCommand,
  DeleteCommand,
  GetCommand,
  PutCommand,
  QueryCommand,
  ScanCommand,
  UpdateCommand,
  type BatchGetCommandOutput,
  type BatchWriteCommandInput,
  type BatchWriteCommandOutput,
  type DeleteCommandInput,
  type GetCommandInput,
  type PutCommandInput,
  type QueryCommandInput,
  type ScanCommandInput,
  type UpdateCommandInput,
} from "@aws-sdk/lib-dynamodb";
import { db, tableName } from "#core/db/client";
import { accessPatterns, type AccessPattern } from "#core/db/indexes";
import { table as tableDefinition } from "#stacks/definitions";

/**
 * The one place the service reads and writes single items. Each helper fills
 * in the table name and decodes the failures callers expect (a condition that
 * did not hold is `isConditionFailed`, or `undefined` from the `…If` helpers),
 * so no module outside core/db builds SDK commands.
 */

export type Item = Record<string, unknown>;
export type Key = { pk: string; sk: string };
/** A command's input without the table (filled in here) and with the index named by its access pattern. */
type Input<T> = Omit<T, "TableName">;
export type QueryInput = Omit<QueryCommandInput, "TableName" | "IndexName"> & {
  index?: AccessPattern;
  /**
   * A filter checked in memory on each item read (on a KEYS_ONLY index, on the item fetched from the table): what
   * `FilterExpression` does server-side, including `Limit` counting the items read before it, `Count` the ones kept
   * and `ScannedCount` the ones read.
   */
  where?: (item: Item) => boolean;
};

/** Whether a write failed because its condition did not hold (someone got there first). */
export function isConditionFailed(error: unknown): boolean {
  return (
    error instanceof ConditionalCheckFailedException ||
    (error as Error | undefined)?.name === "ConditionalCheckFailedException"
  );
}

/**
 * Runs a conditional write: its result, or undefined when the condition did not
 * hold (the expected "someone got there first"). Any other error is thrown.
 */
export async function conditionally<T>(write: Promise<T>): Promise<T | undefined> {
  try {
    return await write;
  } catch (error) {
    if (isConditionFailed(error)) return undefined;
    throw error;
  }
}

export const table = {
  get: (input: Input<GetCommandInput>) => db().send(new GetCommand({ ...input, TableName: tableName() })),
  put: (input: Input<PutCommandInput>) => db().send(new PutCommand({ ...input, TableName: tableName() })),
  update: (input: Input<UpdateCommandInput>) => db().send(new UpdateCommand({ ...input, TableName: tableName() })),
  delete: (input: Input<DeleteCommandInput>) => db().send(new DeleteCommand({ ...input, TableName: tableName() })),
  query: async ({ where, ...input }: QueryInput) => {
    // DynamoDB counts by itself unless a filter runs here, which needs the items.
    const counting = input.Select === "COUNT";
    if (counting && !where) return queryEntries(input);
    const page = await queryEntries(counting ? { ...input, Select: undefined } : input);
    const read = page.Items ?? [];
    const items = (await materialize({ ...input, where }, read)).filter((item) => item !== undefined);
    return {
      ...page,
      Items: counting ? undefined : items,
      Count: items.length,
      ScannedCount: page.ScannedCount ?? read.length,
    };
  },
  scan: (input: Input<ScanCommandInput>) => db().send(new ScanCommand({ ...input, TableName: tableName() })),
};

const keysOnly = (index: AccessPattern | undefined) =>
  index !== undefined && tableDefinition.globalIndexes[accessPatterns[index]].projection === "KEYS_ONLY";

/**
 * One Query call as DynamoDB answers it: on a KEYS_ONLY index, the index entries (keys only; `materialize` fetches
 * their items). Paged and merged reads (core/db/query.ts) take entries first and fetch only the items they keep.
 */
export async function queryEntries({ index, where: _where, ...input }: QueryInput) {
  const indexName = index ? accessPatterns[index] : undefined;
  if (keysOnly(index) && (input.FilterExpression || input.ProjectionExpression)) {
    throw new Error(
      `The ${index} index holds only keys: filter with \`where\` (checked on the items read from the table), not an expression.`,
    );
  }
  return db().send(
    new QueryCommand({ ...input, TableName: tableName(), ...(indexName ? { IndexName: indexName } : {}) }),
  );
}

/**
 * The items of entries a query answered, in their order (undefined where an item is gone or `where` refuses it):
 * fetched from the table for a KEYS_ONLY index, the entries themselves otherwise.
 */
export async function materialize(
  input: Pick<QueryInput, "index" | "where">,
  entries: Item[],
): Promise<(Item | undefined)[]> {
  const items = keysOnly(input.index) ? await itemsAt(entries) : entries;
  return items.map((item) => (item && (!input.where || input.where(item)) ? item : undefined));
}

/** The item at `key`, or undefined. */
export async function getItem(
  key: Key,
  options: { consistent?: boolean; attributes?: string[] } = {},
): Promise<Item | undefined> {
  const { Item } = await table.get({
    Key: key,
    ConsistentRead: options.consistent,
    ...(options.attributes ? projection(options.attributes) : {}),
  });
  return Item;
}

/**
 * The items at `keys` (any order; absent ones left out), 100 per call and up to 8 calls at once (a keys-only index
 * page can name thousands), unprocessed keys asked again.
 */
export async function getItems(
  keys: Key[],
  options: { consistent?: boolean; attributes?: string[] } = {},
): Promise<Item[]> {
  const found: Item[] = [];
  const chunks = Array.from({ length: Math.ceil(keys.length / 100) }, (_, index) =>
    keys.slice(index * 100, index * 100 + 100),
  );
  for (let next = 0; next < chunks.length; next += 8)
    await Promise.all(chunks.slice(next, next + 8).map((chunk) => readChunk(chunk)));
  return found;

  async function readChunk(chunk: Key[]): Promise<void> {
    let requested: Record<string, unknown>[] | undefined = chunk;
    for (let attempt = 0; requested?.length; attempt++) {
      if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, Math.min(1000, 25 * 2 ** attempt)));
      const result: BatchGetCommandOutput = await db().send(
        new BatchGetCommand({
          RequestItems: {
            [tableName()]: {
              Keys: requested,
              ConsistentRead: options.consistent,
              ...(options.attributes ? projection(options.attributes) : {}),
            },
          },
        }),
      );
      found.push(...(result.Responses?.[tableName()] ?? []));
      requested = result.UnprocessedKeys?.[tableName()]?.Keys;
    }
  }
}

/** `found` (in any order, as BatchGetItem answers) in the order of `keys`: undefined where no item holds a key. */
export function inKeyOrder(keys: readonly Key[], found: readonly Item[]): (Item | undefined)[] {
  const identity = (item: { pk: unknown; sk: unknown }) => `${String(item.pk)}\u0000${String(item.sk)}`;
  const stored = new Map(found.map((item) => [identity(item as Key), item]));
  return keys.map((key) => stored.get(identity(key)));
}

/**
 * The items at `keys` in their order (undefined where none is stored): items of several partitions read together,
 * one BatchGetItem per 100 keys (a wallet and its shards, each in a partition of its own, issue 27).
 */
export async function getItemsAt(
  keys: Key[],
  options: { consistent?: boolean; attributes?: string[] } = {},
): Promise<(Item | undefined)[]> {
  return keys.length === 0 ? [] : inKeyOrder(keys, await getItems(keys, options));
}

/** A read one module plans (its keys, and what it makes of the items found) for `readTogether` to batch with others'. */
export interface PlannedRead<T> {
  keys: Key[];
  from: (items: (Item | undefined)[]) => T;
}

/** A read of nothing, for a slot of `readTogether` a request does not need. */
export const nothingToRead: PlannedRead<undefined> = { keys: [], from: () => undefined };

/** The planned read of one item (most reads): its key, and what the item (or none) means. */
export function oneItem<T>(key: Key, of: (item: Item | undefined) => T): PlannedRead<T> {
  return { keys: [key], from: ([item]) => of(item) };
}

/** A planned read on its own, when there is nothing to batch it with (one GetItem for one key). */
export async function readAlone<T>(read: PlannedRead<T>, options: { consistent?: boolean } = {}): Promise<T> {
  const [key, ...more] = read.keys;
  if (key && more.length === 0) return read.from([await getItem(key, options)]);
  return read.from(await getItemsAt(read.keys, options));
}

/** Several planned reads as one (their keys in order), to batch with more reads in `readTogether`. */
export function combinedRead<T extends readonly unknown[]>(reads: {
  [K in keyof T]: PlannedRead<T[K]>;
}): PlannedRead<T> {
  return {
    keys: reads.flatMap((read: PlannedRead<unknown>) => read.keys),
    from: (items) => {
      let at = 0;
      return reads.map((read: PlannedRead<unknown>) =>
        read.from(items.slice(at, (at += read.keys.length))),
      ) as unknown as T;
    },
  };
}

/**
 * Several modules' reads in one consistent BatchGetItem (items of different partitions read at once, issue 27): each
 * read gets its own keys' items, in its order. Keys asked for twice are read once.
 */
export async function readTogether<T extends readonly unknown[]>(reads: {
  [K in keyof T]: PlannedRead<T[K]>;
}): Promise<T> {
  const all = reads.flatMap((read: PlannedRead<unknown>) => read.keys);
  const unique = [...new Map(all.map((key) => [`${key.pk}\u0000${key.sk}`, key])).values()];
  const found = await getItems(unique, { consistent: true });
  return reads.map((read: PlannedRead<unknown>) => read.from(inKeyOrder(read.keys, found))) as unknown as T;
}

/**
 * The table's items at the keys a KEYS_ONLY index answered, in the index's order: one BatchGetItem per 100,
 * eventually consistent like the index itself. An item deleted since is undefined; the index's key attributes are
 * kept on each item (a list's cursor is the index position it read, even when the item has moved since).
 */
async function itemsAt(indexEntries: Item[]): Promise<(Item | undefined)[]> {
  const stored = await getItemsAt(indexEntries.map((entry) => ({ pk: String(entry.pk), sk: String(entry.sk) })));
  return indexEntries.map((entry, index) => {
    const item = stored[index];
    return item ? { ...item, ...entry } : undefined;
  });
}

/** Stores `item` unless an item already holds its key: false when one did (nothing is written). */
export async function putIfNew(item: Item): Promise<boolean> {
  return (
    (await conditionally(table.put({ Item: item, ConditionExpression: "attribute_not_exists(pk)" }))) !== undefined
  );
}

/**
 * Claims `key` once: stores a marker item (with `fields`, e.g. what claimed it
 * and an `expiresAt`) unless it exists. True for the one caller that got it.
 */
export async function claimKey(key: Key, fields: Item = {}): Promise<boolean> {
  return putIfNew({ ...fields, ...key });
}

/** Writes (puts or deletes) many items, 25 per call, unprocessed ones sent again. Not atomic: for rebuildable items only. */
export async function writeItems(requests: NonNullable<BatchWriteCommandInput["RequestItems"]>[string]): Promise<void> {
  for (let start = 0; start < requests.length; start += 25) {
    let pending: typeof requests | undefined = requests.slice(start, start + 25);
    for (let attempt = 0; pending?.length; attempt++) {
      if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, Math.min(1000, 25 * 2 ** attempt)));
      const result: BatchWriteCommandOutput = await db().send(
        new BatchWriteCommand({ RequestItems: { [tableName()]: pending } }),
      );
      pending = result.UnprocessedItems?.[tableName()];
    }
  }
}

function projection(attributes: string[]): {
  ProjectionExpression: string;
  ExpressionAttributeNames: Record<string, string>;
} {
  return {
    ProjectionExpression: attributes.map((_, index) => `#p${index}`).join(", "),
    ExpressionAttributeNames: Object.fromEntries(attributes.map((name, index) => [`#p${index}`, name])),
  };
}
