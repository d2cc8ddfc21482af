import { matches, comparator, compareToCursor, cursorOf, isComparable } from "#core/db/list-compare";
import { indexOf } from "#core/db/indexes";
import { TIME_MAX } from "ulid";
import { queryCount, queryUpTo, readBudget, readInOrder, readsOn, shardsOf, type Readable } from "#core/db/query";
import type { Position } from "#core/db/merge";
import { ValidationError } from "#core/errors";
import { readableItems } from "#core/db/readable";
import type { FieldError } from "#core/shared/validation";
import {
  effectivePageSize,
  invalidContinuationToken,
  pagingQuerySchema,
  readContinuationToken,
  signContinuationToken,
  type ListableFields,
  type Page,
  type PagingQuery,
} from "#core/shared/paging";

export type FieldValue = string | number | boolean | null | undefined;

/** Whether a stored item is readable and matches the query (an unreadable one never does, and is logged). */
const readableMatch = <TItem>(resource: ListResource<TItem>, query: NormalizedQuery, stored: Record<string, unknown>) =>
  readableItems([stored], resource.fromItem).some((item) => matches(resource, query, item));

/** How one field of a listed resource may be used in a paging query. */
export interface ListField<TItem> {
  get: (item: TItem) => FieldValue;
  kind: "string" | "number" | "date" | "boolean" | "decimal";
  filter?: boolean;
  sort?: boolean;
  range?: boolean;
  search?: boolean;
}

/**
 * A query DynamoDB can answer page by page, without reading the rest of the list: one partition's, or the shards of
 * a write-sharded list merged by their sort key (issue 27; each shard keeps its own position in the cursor).
 */
export interface IndexedPlan {
  input: Readable;
  /** The key attributes of an item in that index (the cursor). */
  keyOf: (item: Record<string, unknown>) => Record<string, unknown>;
}

/**
 * Declares a listable resource once: which fields filter, sort, range and
 * search, how to load candidates, and (optionally) when a query can be paged
 * straight from an index.
 */
export interface ListResource<TItem> {
  name: string;
  fields: Record<string, ListField<TItem>>;
  defaultOrder: { field: string; direction: "asc" | "desc" }[];
  idOf: (item: TItem) => string;
  /** Maps a stored item to the response shape. */
  fromItem: (item: Record<string, unknown>) => TItem;
  /** The DynamoDB query that yields every candidate of the organization (in-memory path). */
  candidates: (organizationId: string, context: unknown) => Readable;
  /** Returns a plan when the query needs no in-memory filtering or sorting (index path). */
  indexed?: (organizationId: string, query: NormalizedQuery, context: unknown) => IndexedPlan | undefined;
  /**
   * Returns a plan whose items come in exactly the query's order (its `order`
   * plus the id tie-break) and include every item that matches, when the query
   * has filters, ranges or search the plan cannot answer (key-ordered scan:
   * each read item is checked in memory, within a read budget per request).
   */
  ordered?: (organizationId: string, query: NormalizedQuery, context: unknown) => IndexedPlan | undefined;
  /**
   * Sort fields a key or index yields in order (ascending when `forward`, the id
   * breaking ties in the same direction, as the in-memory comparator does): a
   * query ordered by one of them alone is paged from that plan (index path when
   * plain, key-ordered scan otherwise) instead of being sorted in memory.
   */
  orders?: Record<string, (organizationId: string, context: unknown, forward: boolean) => IndexedPlan>;
}

export interface NormalizedQuery {
  order: { field: string; direction: "asc" | "desc" }[];
  filters: { field: string; value: unknown }[];
  ranges: NonNullable<PagingQuery["rangeFilters"]>;
  search?: string;
  searchFields: string[];
}

/**
 * The one list implementation behind every `…/all/my` route, three ways:
 * - index path: pages an index directly (cursor = DynamoDB key);
 * - key-ordered scan: reads a plan that yields items in the requested order,
 *   keeps the matching ones and stops after a page (or the read budget), so a
 *   page may hold fewer than `pageSize` items while a token is returned
 *   (cursor = `{ scan: DynamoDB key }` to resume after);
 * - in memory: loads the organization's candidates, filters, searches and
 *   sorts them (cursor = sort values of the last item plus its id).
 * Each way yields every item of an unchanged list exactly once.
 */
export async function listPage<TItem>(
  resource: ListResource<TItem>,
  organizationId: string,
  query: PagingQuery,
  context: unknown = {},
): Promise<Page<TItem>> {
  const normalized = normalize(resource, query);
  const pageSize = effectivePageSize(query);
  const budget = readBudget(pageSize);
  const binding = { resource: resource.name, organizationId, shape: { ...normalized, context } };
  const cursor = query.continuationToken ? readContinuationToken(binding, query.continuationToken) : undefined;
  const inOrder = orderPlan(resource, organizationId, normalized, context);
  const plain = !normalized.filters.length && !normalized.ranges.length && !normalized.search;

  const plan = resource.indexed?.(organizationId, normalized, context) ?? (plain ? inOrder : undefined);
  if (plan) {
    const { items, positions } = await pageOf(plan, pageSize, budget, pageSize + 1, indexCursor(cursor));
    return {
      items: readableItems(items, resource.fromItem),
      pageSize,
      ...(query.includeCount ? await cappedCount(plan.input, budget) : { totalCount: null }),
      continuationToken: readsOn(positions) ? signContinuationToken(binding, cursorAt(plan, positions)) : null,
    };
  }

  const ordered = resource.ordered?.(organizationId, normalized, context) ?? inOrder;
  if (ordered) {
    // The key-ordered scan: reads in chunks, keeps the items that match, stops at the first match past the page.
    const chunk = Math.min(Math.max(pageSize * 2, 100), 1000);
    const { items, positions } = await pageOf(ordered, pageSize, budget, chunk, scanCursor(cursor), (stored) =>
      readableMatch(resource, normalized, stored),
    );
    return {
      items: readableItems(items, resource.fromItem),
      pageSize,
      ...(query.includeCount ? await countMatches(resource, normalized, ordered, budget) : { totalCount: null }),
      continuationToken: readsOn(positions)
        ? signContinuationToken(binding, { scan: cursorAt(ordered, positions) })
        : null,
    };
  }

  // In memory: only a list of at most `budget` items is sorted here; a larger one needs an indexed order.
  if (cursor !== undefined && !Array.isArray(cursor)) throw staleCursor();
  const { items: stored, more } = await queryUpTo(resource.candidates(organizationId, context), budget);
  if (more) throw tooLargeToSort(resource, normalized, budget);
  const all = readableItems(stored, resource.fromItem);
  const matched = all.filter((item) => matches(resource, normalized, item));
  const compare = comparator(resource, normalized.order);
  matched.sort(compare);
  const after = cursor as FieldValue[] | undefined;
  const start = after ? matched.findIndex((item) => compareToCursor(resource, normalized.order, item, after) > 0) : 0;
  const from = start === -1 ? matched.length : start;
  const items = matched.slice(from, from + pageSize);
  const last = items.at(-1);
  const hasMore = from + pageSize < matched.length;
  return {
    items,
    pageSize,
    ...(query.includeCount ? { totalCount: matched.length, totalCountCapped: false } : { totalCount: null }),
    continuationToken:
      hasMore && last ? signContinuationToken(binding, cursorOf(resource, normalized.order, last)) : null,
  };
}

/** The plan of a query ordered by one field the resource reads in order from a key or index. */
function orderPlan<TItem>(
  resource: ListResource<TItem>,
  organizationId: string,
  query: NormalizedQuery,
  context: unknown,
): IndexedPlan | undefined {
  const [order, ...more] = query.order;
  const plan = order && !more.length ? resource.orders?.[order.field] : undefined;
  return plan?.(organizationId, context, order!.direction === "asc");
}

/** The 400 of a sort (or filter) with no indexed order on a list larger than one request may read. */
function tooLargeToSort<TItem>(resource: ListResource<TItem>, query: NormalizedQuery, budget: number): ValidationError {
  const indexed = Object.keys(resource.orders ?? {});
  return new ValidationError(`This query on ${resource.name} would read more than ${budget} items.`, [
    {
      pointer: "/orderBy",
      detail: `Ordering by ${query.order.map((entry) => entry.field).join(", ")} is available while the list holds at most ${budget} items; this one holds more. Order by ${indexed.join(" or ") || "the default order"} alone (read from an index, any size).`,
    },
  ]);
}

/**
 * `includeCount` of a plan DynamoDB can count: reads at most `budget` keys; past
 * that the count is a lower bound, flagged `totalCountCapped`.
 */
async function cappedCount(
  input: Readable,
  budget: number,
): Promise<{ totalCount: number; totalCountCapped: boolean }> {
  const { count, more } = await queryCount(input, budget);
  return { totalCount: count, totalCountCapped: more };
}

/**
 * The whole milliseconds a query's range filters on a date field allow
 * (inclusive, never inverted), to narrow a sort-key range of ULIDs of that
 * field: a superset of the exact bounds, which are still checked in memory.
 */
export function dateWindow(ranges: NormalizedQuery["ranges"], field: string): { from: number; to: number } {
  let from = 0;
  let to = TIME_MAX;
  for (const range of ranges.filter((entry) => entry.field === field)) {
    for (const bound of [range.greaterThan, range.greaterThanOrEqual]) {
      if (bound !== undefined) from = Math.max(from, Math.floor(Date.parse(String(bound))));
    }
    for (const bound of [range.lessThan, range.lessThanOrEqual]) {
      if (bound !== undefined) to = Math.min(to, Math.ceil(Date.parse(String(bound))));
    }
  }
  return { from, to: Math.max(from, to) };
}

/**
 * An `orders` entry read from the table's sort key after a prefix, for items
 * whose key follows the field: ids that are ULIDs taken when the item is
 * created (createdAt order; an id and its createdAt are taken in the same
 * write path, so they agree but for items created within the same few
 * milliseconds), or a key that is the value itself (a phone number).
 */
/* @__NO_SIDE_EFFECTS__ */
export function keyOrder(prefix: (organizationId: string, context: unknown) => { pk: string; skPrefix: string }) {
  return (organizationId: string, context: unknown, forward: boolean): IndexedPlan => ({
    input: { ...prefixQuery(prefix(organizationId, context)), ScanIndexForward: forward },
    keyOf: (item) => ({ pk: item.pk, sk: item.sk }),
  });
}

/**
 * An `orders` entry read from an ordered-list index (gsi4-gsi6, keys
 * `<value>\0<id>` built in core/db/keys.ts): the whole partition in index order.
 */
export function indexOrder(
  pattern: "sortedByField" | "sortedByPrice" | "sortedByModifiedAt",
  partition: (organizationId: string, context: unknown) => Record<string, string>,
) {
  const index = indexOf(pattern);
  return (organizationId: string, context: unknown, forward: boolean): IndexedPlan => ({
    input: {
      index: pattern,
      KeyConditionExpression: `${index.pk} = :pk`,
      ExpressionAttributeValues: { ":pk": partition(organizationId, context)[index.pk] },
      ScanIndexForward: forward,
    },
    keyOf: (item) => ({ pk: item.pk, sk: item.sk, [index.pk]: item[index.pk], [index.sk]: item[index.sk] }),
  });
}

/** The query of an entity's items under one partition by sort-key prefix (the usual `candidates`). */
export function prefixQuery(prefix: { pk: string; skPrefix: string }) {
  return {
    KeyConditionExpression: "pk = :pk AND begins_with(sk, :prefix)",
    ExpressionAttributeValues: { ":pk": prefix.pk, ":prefix": prefix.skPrefix },
  };
}

/** The field names each use allows: the enums of the resource's list query (`listQuerySchema`). */
export function listableFields<TItem>(resource: ListResource<TItem>): ListableFields {
  const allowed = (ability: keyof ListableFields) =>
    Object.entries(resource.fields)
      .filter(([, spec]) => spec[ability])
      .map(([name]) => name);
  return { sort: allowed("sort"), filter: allowed("filter"), range: allowed("range"), search: allowed("search") };
}

/** The body of a resource's list operation: the paging query with the resource's field names as enums. */
/* @__NO_SIDE_EFFECTS__ */
export function listQuerySchema<TItem>(resource: ListResource<TItem>) {
  return pagingQuerySchema({ name: resource.name, fields: listableFields(resource) });
}

function normalize<TItem>(resource: ListResource<TItem>, query: PagingQuery): NormalizedQuery {
  const errors: FieldError[] = [];
  const check = (pointer: string, field: string, ability: "filter" | "sort" | "range" | "search") => {
    const spec = resource.fields[field];
    if (!spec?.[ability]) {
      const allowed = listableFields(resource)[ability];
      errors.push({
        pointer,
        detail: `'${field}' cannot be used to ${ability} ${resource.name}; use one of: ${allowed.join(", ") || "none"}.`,
      });
    }
  };
  const order = query.orderBy?.length
    ? query.orderBy.map((entry, index) => {
        check(`/orderBy/${index}/field`, entry.field, "sort");
        return { field: entry.field, direction: entry.direction };
      })
    : resource.defaultOrder;
  const filters = (query.filters ?? []).map((filter, index) => {
    check(`/filters/${index}/field`, filter.field, "filter");
    return { field: filter.field, value: filter.value };
  });
  const ranges = (query.rangeFilters ?? []).map((range, index) => {
    check(`/rangeFilters/${index}/field`, range.field, "range");
    const spec = resource.fields[range.field];
    for (const bound of ["greaterThan", "greaterThanOrEqual", "lessThan", "lessThanOrEqual"] as const) {
      const value = range[bound];
      if (value !== undefined && spec && !isComparable(spec.kind, value)) {
        errors.push({ pointer: `/rangeFilters/${index}/${bound}`, detail: `Expected a ${spec.kind} value.` });
      }
    }
    return range;
  });
  const searchable = Object.entries(resource.fields)
    .filter(([, spec]) => spec.search)
    .map(([name]) => name);
  const searchFields = query.searchFields?.length
    ? query.searchFields.map((field, index) => {
        check(`/searchFields/${index}`, field, "search");
        return field;
      })
    : searchable;
  if (errors.length) throw new ValidationError("The paging query uses fields this list does not support.", errors);
  return { order, filters, ranges, search: query.search || undefined, searchFields };
}

/**
 * One page of a plan from the shard positions a cursor holds: every shard read from where it stood, at most
 * `fetchLimit` entries per round trip, until the page and one more kept item are read (so the last page carries no
 * token), the plan ends, or the read budget is spent (the page may then be short, even empty, and resumes after the
 * last entry read).
 */
function pageOf(
  plan: IndexedPlan,
  pageSize: number,
  budget: number,
  fetchLimit: number,
  cursor: Record<string, unknown> | undefined,
  accept?: (stored: Record<string, unknown>) => boolean,
) {
  const start = positionsOf(plan, cursor);
  return readInOrder(plan.input, {
    pageSize,
    budget,
    fetchLimit,
    keyOf: plan.keyOf,
    ...(start ? { start } : {}),
    ...(accept ? { accept } : {}),
  });
}

/** The cursor of shard positions: one partition's key as before; a sharded plan's `{ shards: [...] }`. */
function cursorAt(plan: IndexedPlan, positions: Position[]): Record<string, unknown> {
  return shardsOf(plan.input).length === 1 ? (positions[0] as Record<string, unknown>) : { shards: positions };
}

function positionsOf(plan: IndexedPlan, cursor: Record<string, unknown> | undefined): Position[] | undefined {
  if (cursor === undefined) return undefined;
  const count = shardsOf(plan.input).length;
  if (count === 1) {
    if ("shards" in cursor) throw staleCursor();
    return [cursor];
  }
  const shards = cursor.shards;
  const valid = (position: unknown) => position === null || position === false || isKey(position);
  if (!Array.isArray(shards) || shards.length !== count || !shards.every(valid)) throw staleCursor();
  return shards as Position[];
}

/**
 * `includeCount` on the key-ordered scan: checks at most `budget` items of the
 * plan; when more remain, the count of matches among them is a lower bound,
 * flagged `totalCountCapped`.
 */
async function countMatches<TItem>(
  resource: ListResource<TItem>,
  query: NormalizedQuery,
  plan: IndexedPlan,
  budget: number,
): Promise<{ totalCount: number; totalCountCapped: boolean }> {
  const { items, more } = await queryUpTo(plan.input, budget);
  const totalCount = items.filter((stored) => readableMatch(resource, query, stored)).length;
  return { totalCount, totalCountCapped: more };
}

const isKey = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** A token of a listing taken another way (the code changed between two pages): the client starts over. */
const staleCursor = () =>
  invalidContinuationToken("The token was issued for another way of reading this list; request the first page again.");

function indexCursor(cursor: unknown): Record<string, unknown> | undefined {
  if (cursor === undefined) return undefined;
  if (isKey(cursor) && !("scan" in cursor)) return cursor;
  throw staleCursor();
}

function scanCursor(cursor: unknown): Record<string, unknown> | undefined {
  if (cursor === undefined) return undefined;
  if (isKey(cursor) && isKey(cursor.scan)) return cursor.scan;
  throw staleCursor();
}
export { compareValues } from "#core/db/list-compare";
