import { Placeholders, where, type Condition } from "#core/db/expression";
import { indexOf, type AccessPattern } from "#core/db/indexes";
import type { QueryInput, Readable, ShardedQuery } from "#core/db/query";
import { createHash } from "node:crypto";
import type { IndexedPlan } from "#core/db/list";
import { table } from "#core/db/items";

/**
 * Entities in the ElectroDB manner (tywalch/electrodb, `taskmanager/src/database/task.ts`), as a thin layer over
 * our table: an entity declares its stored attributes, its primary key and, per access pattern, the composites of
 * each secondary index. A put derives every index key from the record; an update derives the keys of every index
 * whose composites it touches (and removes a sparse index's keys when the item leaves it); a read names the access
 * pattern (`Leads.query("byStatus", …)`). So no aggregate writes a `gsiN` attribute or an expression string, and
 * moving an entity to other partitions (issue 27) is a change of its declaration.
 *
 * Key builders receive the record; a query passes only the composites it knows, and a sort-key builder then yields
 * the prefix up to the first composite missing (`LEAD#` without an id), which is what a range reads.
 */
export interface IndexDeclaration<T> {
  /** The access pattern (core/db/indexes.ts) whose physical index holds these keys. */
  index: AccessPattern;
  /** The partition key; of a write-sharded index, of the shard given (`shardOf` the item's `shards.by`). */
  pk: (item: T, shard: number) => string;
  sk: (item: T) => string;
  /** Attribute paths the keys are built from (`metadata.price`): an update touching one (or its parent) re-derives this index. */
  composites: readonly string[];
  /** A sparse index: the item is in it only while this holds (its keys are removed otherwise). */
  when?: (item: T) => boolean;
  /**
   * A write-sharded index (issue 27): an item's entry lives in one of `count` partitions, chosen by a hash of
   * `by(item)` (its id: fixed for life, so an update never moves it between shards). A query that names no `shard`
   * composite reads every shard and merges them by the sort key (core/db/merge.ts).
   */
  shards?: { count: number; by: (item: T) => string };
  /**
   * An entry the record cannot say it holds (its due time is not stored; it shares its index keys with another
   * entry of the item): never derived, written only when an update names it in `enter`, removed by `leave`.
   */
  explicit?: true;
}

/** The shard of a write-sharded index an item with this id is written to. */
export function shardOf(id: string, count: number): number {
  return createHash("sha256").update(id).digest().readUInt32BE(0) % count;
}

export interface EntityDeclaration<T, Identity, Pattern extends string> {
  /** The stored `entity` attribute. */
  name: string;
  /** The attributes read back from an item (absent ones read as null). */
  attributes: readonly string[];
  key: (identity: Identity) => { pk: string; sk: string };
  identity: (item: T) => Identity;
  /** The primary key's own access pattern (items of one partition in sort-key order). */
  collection?: { name: string; pk: (item: T, shard: number) => string; sk: (item: T) => string };
  indexes: Record<Pattern, IndexDeclaration<T>>;
}

/** A sort-key range of a query: full sort keys or prefixes built with `sortKey`. */
export type KeyRange =
  | { between: readonly [string, string] }
  | { beginsWith: string }
  | { below: string }
  | { atMost: string }
  | { atLeast: string };

export type ReadOptions = {
  range?: KeyRange;
  forward?: boolean;
  limit?: number;
  /** Checked by DynamoDB on each item read (a FilterExpression; not on a keys-only index). */
  filter?: Condition;
  /** The attributes to read back (a ProjectionExpression). */
  attributes?: readonly string[];
  /** Checked in memory on each item read (on a keys-only index, on the item fetched from the table). */
  where?: (item: Record<string, unknown>) => boolean;
  /** A strongly consistent read (the table's own key only: an index is never read consistently). */
  consistent?: boolean;
};

type Changes = Record<string, unknown>;
/** The composites a read knows (a key builder given fewer yields a prefix); extra ones a builder reads (a shard). */
type Composites<T> = Partial<T> & Record<string, unknown>;

/* @__NO_SIDE_EFFECTS__ */
export function defineEntity<T extends object, Identity, Pattern extends string>(
  declaration: EntityDeclaration<T, Identity, Pattern>,
) {
  const patterns = Object.entries(declaration.indexes) as [Pattern, IndexDeclaration<T>][];
  const indexKeys = (pattern: Pattern) => indexOf(declaration.indexes[pattern].index);
  const collection = () => {
    if (!declaration.collection) throw new Error(`${declaration.name} declares no collection to read.`);
    return declaration.collection;
  };

  /** The key attributes of every index the record belongs to (and the names of those it left). */
  function derive(record: T, only?: (index: IndexDeclaration<T>) => boolean) {
    const set = new Map<string, unknown>();
    const remove: string[] = [];
    for (const [, index] of patterns) {
      if (index.explicit || (only && !only(index))) continue;
      const physical = indexOf(index.index);
      if (index.when && !index.when(record)) remove.push(physical.pk, physical.sk);
      else
        set
          .set(physical.pk, index.pk(record, shardIn(index, record as Composites<T>)))
          .set(physical.sk, index.sk(record));
    }
    return { set, remove };
  }

  /** The Query of one partition of a pattern. */
  function partitionQuery(
    pattern: Pattern | "collection",
    composites: Composites<T>,
    options: ReadOptions,
  ): QueryInput {
    const placeholders = new Placeholders();
    const physical = pattern === "collection" ? { pk: "pk", sk: "sk" } : indexKeys(pattern);
    const condition = keyCondition(
      placeholders,
      { name: physical.pk, value: entity.partitionKey(pattern, composites) },
      physical.sk,
      options.range,
    );
    const filter = options.filter ? placeholders.condition(options.filter) : "";
    const projection = options.attributes ? placeholders.projection(options.attributes) : "";
    return {
      ...(pattern === "collection" ? {} : { index: declaration.indexes[pattern].index }),
      KeyConditionExpression: condition,
      ...(filter ? { FilterExpression: filter } : {}),
      ...(projection ? { ProjectionExpression: projection } : {}),
      ...placeholders.attributes(),
      ...(options.forward === undefined ? {} : { ScanIndexForward: options.forward }),
      ...(options.limit === undefined ? {} : { Limit: options.limit }),
      ...(options.where ? { where: options.where } : {}),
      ...(options.consistent ? { ConsistentRead: true } : {}),
    };
  }

  function keyCondition(
    placeholders: Placeholders,
    pk: { name: string; value: string },
    sk: string,
    range?: KeyRange,
  ): string {
    const partition = `${placeholders.path(pk.name)} = ${placeholders.value(pk.value)}`;
    if (!range) return partition;
    const key = placeholders.path(sk);
    if ("between" in range)
      return `${partition} AND ${key} BETWEEN ${placeholders.value(range.between[0])} AND ${placeholders.value(range.between[1])}`;
    if ("beginsWith" in range) return `${partition} AND begins_with(${key}, ${placeholders.value(range.beginsWith)})`;
    if ("below" in range) return `${partition} AND ${key} < ${placeholders.value(range.below)}`;
    if ("atLeast" in range) return `${partition} AND ${key} >= ${placeholders.value(range.atLeast)}`;
    return `${partition} AND ${key} <= ${placeholders.value(range.atMost)}`;
  }

  /** The shard an item's entry is in (0 for an index that is not sharded; a `shard` composite when given). */
  function shardIn(index: IndexDeclaration<T>, composites: Composites<T>): number {
    if (typeof composites.shard === "number") return composites.shard;
    return index.shards ? shardOf(index.shards.by(composites as T), index.shards.count) : 0;
  }

  const entity = {
    name: declaration.name,
    key: declaration.key,

    /** The stored item: the record, its key, `entity`, and the keys of every index it belongs to (`extra` beside). */
    item(record: T, extra: Record<string, unknown> = {}): Record<string, unknown> {
      return {
        ...declaration.key(declaration.identity(record)),
        ...Object.fromEntries(derive(record).set),
        entity: declaration.name,
        ...extra,
        ...record,
      };
    },

    /** A put of the record (for `table.put` or `Transaction.put`), unless `condition` fails. */
    put(record: T, options: { condition?: Condition; extra?: Record<string, unknown> } = {}) {
      const placeholders = new Placeholders();
      const condition = options.condition ? placeholders.condition(options.condition) : "";
      return {
        Item: entity.item(record, options.extra),
        ...(condition ? { ConditionExpression: condition, ...placeholders.attributes() } : {}),
      };
    },

    /**
     * A put at `identity` of a record that does not hold it (an item keyed by what it is about, which it need not
     * store: an idempotency record by its key, an allowance by its partition), unless `condition` fails.
     */
    putAt(identity: Identity, record: Record<string, unknown>, options: { condition?: Condition } = {}) {
      const placeholders = new Placeholders();
      const condition = options.condition ? placeholders.condition(options.condition) : "";
      return {
        Item: {
          ...declaration.key(identity),
          // Its index keys may be built from its identity too (an organization's partition of an index).
          ...Object.fromEntries(derive({ ...identity, ...record } as T).set),
          entity: declaration.name,
          ...record,
        },
        ...(condition ? { ConditionExpression: condition, ...placeholders.attributes() } : {}),
      };
    },

    /** A put that stores the record only if no item holds its key. */
    create(record: T, extra?: Record<string, unknown>) {
      return entity.put(record, { condition: where.new(), ...(extra ? { extra } : {}) });
    },

    /**
     * An update of `current` by `changes` (by dotted path: `metadata.smsConsentStatus`), with the keys of every
     * index whose composites a change touches derived from the record as it will be (for `table.update` or
     * `Transaction.update`). `remove` names attributes to drop. `current` is the record as read, or at least its
     * identity and the composites of the indexes the changes touch. `enter` puts the item in explicit indexes (by
     * the composites given beside the record as it will be), `leave` takes it out of them, `reorder` moves the item's
     * entry within its partition (sets its sort key alone) whether or not it is in the index now.
     */
    update(
      current: Composites<T>,
      changes: Changes,
      options: {
        condition?: Condition;
        remove?: readonly string[];
        entries?: Readonly<Record<string, unknown>>;
        enter?: Partial<Record<Pattern, Composites<T>>>;
        leave?: readonly Pattern[];
        reorder?: Partial<Record<Pattern, Composites<T>>>;
      } = {},
    ) {
      const next = applied(current as T, changes);
      const paths = Object.keys(changes);
      const derived = derive(next, (index) =>
        index.composites.some((composite) => paths.some((path) => overlaps(path, composite))),
      );
      const placeholders = new Placeholders();
      // `entries`: index keys a key builder gave for a state the declaration does not model (a due entry); they
      // replace what is derived for the same attributes.
      const entered = Object.entries(options.enter ?? {}).flatMap(([pattern, composites]) =>
        Object.entries(entity.entryIn(pattern as Pattern, { ...next, ...(composites as Composites<T>) })),
      );
      // `reorder`: the entry's sort key only, its partition key (whether the item is in the index) left as stored: an
      // explicit sparse index a blind write cannot tell the item's membership of (a conversation's unread entry).
      const reordered = Object.entries(options.reorder ?? {}).map(([pattern, composites]): [string, unknown] => [
        indexKeys(pattern as Pattern).sk,
        declaration.indexes[pattern as Pattern].sk({ ...next, ...(composites as Composites<T>) }),
      ]);
      const entries = [...Object.entries(options.entries ?? {}), ...entered, ...reordered];
      const set = new Map<string, unknown>([...Object.entries(changes), ...derived.set, ...entries]);
      const left = (options.leave ?? []).flatMap((pattern) => [indexKeys(pattern).pk, indexKeys(pattern).sk]);
      const removed = [...derived.remove, ...left].filter((name) => !entries.some(([entry]) => entry === name));
      const expression = placeholders.update(set, [...(options.remove ?? []), ...removed]);
      const condition = options.condition ? placeholders.condition(options.condition) : "";
      return {
        Key: declaration.key(declaration.identity(current as T)),
        UpdateExpression: expression,
        ...(condition ? { ConditionExpression: condition } : {}),
        ...placeholders.attributes(),
      };
    },

    /** A delete of the item at `identity` (for `table.delete` or `Transaction.delete`), unless `condition` fails. */
    remove(identity: Identity, options: { condition?: Condition } = {}) {
      const placeholders = new Placeholders();
      const condition = options.condition ? placeholders.condition(options.condition) : "";
      return {
        Key: declaration.key(identity),
        ...(condition ? { ConditionExpression: condition, ...placeholders.attributes() } : {}),
      };
    },

    /** A transaction's check that `condition` holds on the item at `identity`, writing nothing (`Transaction.check`). */
    check(identity: Identity, condition: Condition) {
      const placeholders = new Placeholders();
      return {
        Key: declaration.key(identity),
        ConditionExpression: placeholders.condition(condition),
        ...placeholders.attributes(),
      };
    },

    /** The stored item at `identity` (its `attributes` only, by dotted path, when given), or undefined. */
    async get(
      identity: Identity,
      options: { consistent?: boolean; attributes?: readonly string[] } = {},
    ): Promise<Record<string, unknown> | undefined> {
      const placeholders = new Placeholders();
      const projection = options.attributes ? placeholders.projection(options.attributes) : "";
      const { Item } = await table.get({
        Key: declaration.key(identity),
        ...(options.consistent ? { ConsistentRead: true } : {}),
        ...(projection ? { ProjectionExpression: projection, ...placeholders.attributes() } : {}),
      });
      return Item;
    },

    /** The record an item holds (the declared attributes; absent ones null). */
    fromItem(item: Record<string, unknown>): T {
      return Object.fromEntries(declaration.attributes.map((attribute) => [attribute, item[attribute] ?? null])) as T;
    },

    /** The partition key of a pattern for the composites given (of a sharded index, the `shard` composite's). */
    partitionKey(pattern: Pattern | "collection", composites: Composites<T>): string {
      if (pattern === "collection") return collection().pk(composites as T, 0);
      const index = declaration.indexes[pattern];
      return index.pk(composites as T, typeof composites.shard === "number" ? composites.shard : 0);
    },

    /** How many shards a pattern's partition is written across (1 unless sharded). */
    shardCount(pattern: Pattern | "collection"): number {
      return pattern === "collection" ? 1 : (declaration.indexes[pattern].shards?.count ?? 1);
    },

    /** The sort key (or its prefix, up to the first composite missing) of a pattern. */
    sortKey(pattern: Pattern | "collection", composites: Composites<T>): string {
      return (pattern === "collection" ? collection() : declaration.indexes[pattern]).sk(composites as T);
    },

    /** A condition on the sort key an item holds in a pattern's index (a sweep claiming the entry it read). */
    indexedAt(pattern: Pattern, sortKey: string): Condition {
      return where.equals(indexKeys(pattern).sk, sortKey);
    },

    /**
     * Where a record's entry stands in a pattern's index: its table key and index key, the ExclusiveStartKey of a
     * page that resumes after it (a cursor a client holds names the record, not the keys).
     */
    positionOf(pattern: Pattern, record: Composites<T>): Record<string, unknown> {
      return { ...declaration.key(declaration.identity(record as T)), ...entity.entryIn(pattern, record) };
    },

    /** The index key attributes of a record's entry in a pattern's index. */
    entryIn(pattern: Pattern, record: Composites<T>): Record<string, unknown> {
      const index = declaration.indexes[pattern];
      const physical = indexKeys(pattern);
      return {
        [physical.pk]: index.pk(record as T, shardIn(index, record)),
        [physical.sk]: index.sk(record as T),
      };
    },

    /** The index key attributes an item read holds in a pattern's index (undefined when it is not in it). */
    entryOf(pattern: Pattern, item: Record<string, unknown>): Record<string, unknown> | undefined {
      const physical = indexKeys(pattern);
      return item[physical.pk] !== undefined && item[physical.sk] !== undefined
        ? { [physical.pk]: item[physical.pk], [physical.sk]: item[physical.sk] }
        : undefined;
    },

    /** The sort key an item read from a pattern's index holds there. */
    indexPosition(pattern: Pattern, item: Record<string, unknown>): string {
      return String(item[indexKeys(pattern).sk]);
    },

    /** The Query of one partition of a pattern (a sharded index's names its `shard` composite). */
    queryPartition(pattern: Pattern | "collection", composites: Composites<T>, options: ReadOptions = {}): QueryInput {
      if (entity.shardCount(pattern) > 1 && typeof composites.shard !== "number")
        throw new Error(`${declaration.name} ${pattern} is sharded: name the shard, or read it with query().`);
      return partitionQuery(pattern, composites, options);
    },

    /**
     * The read of one access pattern (the primary key's own: `collection`) by the composites given: one partition's
     * Query, or, of a write-sharded index with no `shard` composite, one Query per shard merged by the sort key.
     */
    query(pattern: Pattern | "collection", composites: Composites<T>, options: ReadOptions = {}): Readable {
      const shards = entity.shardCount(pattern);
      if (shards === 1 || typeof composites.shard === "number") return partitionQuery(pattern, composites, options);
      const sharded: ShardedQuery = {
        shards: Array.from({ length: shards }, (_, shard) =>
          partitionQuery(pattern, { ...composites, shard }, options),
        ),
        mergeBy: indexKeys(pattern as Pattern).sk,
        forward: options.forward ?? true,
      };
      return sharded;
    },

    /** A list plan (core/db/list.ts) of one access pattern: the query and the key an item's cursor is. */
    plan(pattern: Pattern | "collection", composites: Composites<T>, options: ReadOptions = {}): IndexedPlan {
      const physical = pattern === "collection" ? undefined : indexKeys(pattern);
      return {
        input: entity.query(pattern, composites, options),
        keyOf: (item) => ({
          pk: item.pk,
          sk: item.sk,
          ...(physical ? { [physical.pk]: item[physical.pk], [physical.sk]: item[physical.sk] } : {}),
        }),
      };
    },
  };
  return entity;
}

/** The record with `changes` (by dotted path) applied: what the item will hold, for deriving its keys. */
/** The record after `changes` (by dotted path), as an update by them leaves it. */
export function applied<T extends object>(record: T, changes: Changes): T {
  const next = structuredClone(record) as Record<string, unknown>;
  for (const [path, value] of Object.entries(changes)) {
    const segments = path.split(".");
    let target = next;
    for (const segment of segments.slice(0, -1)) {
      const inner = target[segment];
      target = (target[segment] = typeof inner === "object" && inner !== null ? inner : {}) as Record<string, unknown>;
    }
    target[segments.at(-1)!] = value;
  }
  return next as T;
}

/** Whether writing `path` changes `composite` (the same path, a parent of it, or a part of it). */
function overlaps(path: string, composite: string): boolean {
  return path === composite || composite.startsWith(`${path}.`) || path.startsWith(`${composite}.`);
}
