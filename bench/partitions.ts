import { unmarshall } from "@aws-sdk/util-dynamodb";
import type { CallRecord } from "#core/observability/call-count";
import { table as definition } from "#stacks/definitions";

/**
 * Capacity units per partition key (issue 27), derived from the calls a run made, by AWS's billing rules rather
 * than DynamoDB Local's report (which under-counts transactions and index writes):
 * - a write is 1 unit per started KB of the item as written (an update: of the item as it ends the run, the best
 *   size known), doubled inside TransactWriteItems (AWS's transaction rule: 2 units per KB per item); a
 *   ConditionCheck part is counted as a transactional write of its item too (conservative);
 * - each index entry written (put, or moved between partitions: the put in the new one and the delete in the old)
 *   is 1 unit per started KB of its projection, doubled when its item was written in a transaction (conservative:
 *   AWS bills an index's replication as ordinary writes);
 * - a read is 1 unit per started 4 KB of each item (a query: of the entries it evaluated), half that eventually
 *   consistent, doubled in TransactGetItems.
 * A partition is the table or an index and its partition key value (`gsi8 ORG#o#LEADS#3`).
 */

type Item = Record<string, unknown>;
export interface PartitionUnits {
  write: number;
  read: number;
}

const indexes = Object.entries(definition.globalIndexes).map(([name, index]) => ({
  name,
  pk: index.partitionKey,
  sk: index.sortKey,
  /** The non-key attributes an index copies (none for KEYS_ONLY). */
  included: Array.isArray(index.projection) ? (index.projection as readonly string[]) : [],
}));

/** An attribute value as DynamoDB sizes it (names count too, in maps and at the top). */
function valueSize(value: unknown): number {
  if (value === null || value === undefined || typeof value === "boolean") return 1;
  if (typeof value === "string") return Buffer.byteLength(value, "utf8");
  if (typeof value === "number") return Math.ceil(String(value).replace(/^-|\.|e.*$/g, "").length / 2) + 1;
  if (Array.isArray(value)) return 3 + value.reduce((sum: number, entry) => sum + 1 + valueSize(entry), 0);
  if (value instanceof Uint8Array) return value.byteLength;
  if (value instanceof Set) return [...value].reduce((sum: number, entry) => sum + valueSize(entry), 0);
  return 3 + itemSize(value as Item);
}

export function itemSize(item: Item): number {
  return Object.entries(item).reduce((sum, [name, value]) => sum + Buffer.byteLength(name) + valueSize(value), 0);
}

const attributeValueKeys = new Set(["S", "N", "B", "BOOL", "NULL", "M", "L", "SS", "NS", "BS"]);
const isAttributeValue = (value: unknown) =>
  typeof value === "object" &&
  value !== null &&
  Object.keys(value).length === 1 &&
  attributeValueKeys.has(Object.keys(value)[0]!);

/** An item or value map as the SDK sent it, plain (the counting middleware may see it marshalled or not). */
function plain(item: Item | undefined): Item {
  if (!item) return {};
  const marshalled = Object.values(item).some(isAttributeValue);
  return marshalled ? unmarshall(item as never) : item;
}

const keyOf = (item: Item) => `${String(item.pk)}|${String(item.sk)}`;

/** The attributes an update expression SETs (with their values) and REMOVEs. */
function updated(input: Item): { set: Map<string, unknown>; removed: string[] } {
  const names = (input.ExpressionAttributeNames ?? {}) as Record<string, string>;
  const values = plain(input.ExpressionAttributeValues as Item | undefined);
  const name = (path: string) =>
    path
      .trim()
      .split(".")
      .map((part) => names[part] ?? part)
      .join(".");
  const expression = String(input.UpdateExpression ?? "");
  const set = new Map<string, unknown>();
  const removed: string[] = [];
  for (const clause of expression.split(/\b(?=SET |REMOVE |ADD |DELETE )/)) {
    const [verb, ...rest] = clause.trim().split(" ");
    const body = rest.join(" ");
    if (verb === "REMOVE") removed.push(...body.split(",").map(name));
    else if (verb === "SET" || verb === "ADD")
      for (const assignment of body.split(/,(?![^(]*\))/)) {
        const [target, value] = verb === "SET" ? assignment.split("=") : assignment.trim().split(/\s+/);
        if (target) set.set(name(target), value?.trim().startsWith(":") ? values[value.trim()] : undefined);
      }
  }
  return { set, removed };
}

/**
 * Units per partition from a run's calls; `sizes` holds each item's size at the end of the run (`pk|sk` → bytes).
 */
export function unitsByPartition(
  calls: CallRecord[],
  sizes: Map<string, number>,
): { units: Map<string, PartitionUnits>; byItem: Map<string, number>; readsByItem: Map<string, number> } {
  const units = new Map<string, PartitionUnits>();
  /** Table write units per item written (`pk|sk`), to say which items a hot partition's units go to. */
  const byItem = new Map<string, number>();
  /** Table read units per item read (`pk|sk`; a Query's `pk|` + its sort-key bound), to say what a partition's reads are. */
  const readsByItem = new Map<string, number>();
  const add = (partition: string, kind: keyof PartitionUnits, amount: number) => {
    const entry = units.get(partition) ?? { write: 0, read: 0 };
    entry[kind] += amount;
    units.set(partition, entry);
  };
  /** Where each item's index entries stand (index → partition key, sort key and included attributes), as written. */
  const entries = new Map<string, Map<string, { partition: string; signature: string }>>();
  const sizeOf = (key: string, fallback = 1024) => sizes.get(key) ?? fallback;

  /**
   * A write of an item (`after`: a put's whole item; else an update's `changed` and `removed` attributes). An index
   * is written only when the item's entry in it changes (its keys or included attributes), as AWS does: a moved
   * entry is a delete in the old partition and a put in the new one.
   */
  function written(
    key: Item,
    after: Item | undefined,
    changed: Map<string, unknown>,
    removed: string[],
    factor: number,
  ) {
    const id = keyOf(key);
    const size = after ? itemSize(after) : sizeOf(id);
    add(`table ${String(key.pk)}`, "write", Math.max(1, Math.ceil(size / 1024)) * factor);
    byItem.set(
      `${String(key.pk)}|${String(key.sk)}`,
      (byItem.get(`${String(key.pk)}|${String(key.sk)}`) ?? 0) + Math.max(1, Math.ceil(size / 1024)) * factor,
    );
    const current = entries.get(id) ?? new Map<string, { partition: string; signature: string }>();
    for (const index of indexes) {
      const before = current.get(index.name);
      const touched = [index.pk, index.sk, ...index.included].some(
        (name) => changed.has(name) || removed.includes(name),
      );
      if (!after && !touched) continue;
      const value = (name: string) => (after ? after[name] : changed.has(name) ? changed.get(name) : undefined);
      const partition = after
        ? (after[index.pk] as string | undefined)
        : removed.includes(index.pk)
          ? undefined
          : ((value(index.pk) as string | undefined) ?? before?.partition);
      const signature = JSON.stringify([partition, value(index.sk), ...index.included.map(value)]);
      if (partition === undefined) {
        if (before) add(`${index.name} ${before.partition}`, "write", factor);
        current.delete(index.name);
        continue;
      }
      if (before && before.signature === signature) continue;
      if (before && before.partition !== partition) add(`${index.name} ${before.partition}`, "write", factor);
      add(`${index.name} ${partition}`, "write", factor);
      current.set(index.name, { partition, signature });
    }
    entries.set(id, current);
  }

  function deleted(key: Item, factor: number) {
    const id = keyOf(key);
    add(`table ${String(key.pk)}`, "write", Math.max(1, Math.ceil(sizeOf(id) / 1024)) * factor);
    for (const [index, entry] of entries.get(id) ?? []) add(`${index} ${entry.partition}`, "write", factor);
    entries.delete(id);
  }

  const readItem = (key: string, units: number) => readsByItem.set(key, (readsByItem.get(key) ?? 0) + units);
  const read = (key: Item, bytes: number, consistent: boolean, factor = 1) => {
    const units = Math.max(1, Math.ceil(bytes / 4096)) * (consistent ? 1 : 0.5) * factor;
    add(`table ${String(key.pk)}`, "read", units);
    readItem(`${String(key.pk)}|${String(key.sk)}`, units);
  };

  for (const call of calls) {
    if (call.service !== "dynamodb") continue;
    const input = call.input;
    if (call.error) {
      // A refused condition still costs the write it would have made; a cancelled transaction its items' writes.
      if (
        call.command === "PutItemCommand" ||
        call.command === "UpdateItemCommand" ||
        call.command === "DeleteItemCommand"
      ) {
        const key = plain((input.Item ?? input.Key) as Item);
        add(`table ${String(key.pk)}`, "write", 1);
      }
      continue;
    }
    switch (call.command) {
      case "PutItemCommand": {
        const item = plain(input.Item as Item);
        written(item, item, new Map(Object.entries(item)), [], 1);
        break;
      }
      case "UpdateItemCommand": {
        const { set, removed } = updated(input);
        written(plain(input.Key as Item), undefined, set, removed, 1);
        break;
      }
      case "DeleteItemCommand":
        deleted(plain(input.Key as Item), 1);
        break;
      case "BatchWriteItemCommand":
        for (const requests of Object.values((input.RequestItems ?? {}) as Record<string, Item[]>))
          for (const request of requests) {
            const put = request.PutRequest as { Item: Item } | undefined;
            const remove = request.DeleteRequest as { Key: Item } | undefined;
            if (put) {
              const item = plain(put.Item);
              written(item, item, new Map(Object.entries(item)), [], 1);
            } else if (remove) deleted(plain(remove.Key), 1);
          }
        break;
      case "TransactWriteItemsCommand":
        for (const part of (input.TransactItems ?? []) as Item[]) {
          const body = (part.Put ?? part.Update ?? part.Delete ?? part.ConditionCheck) as Item;
          if (part.Put) {
            const item = plain(body.Item as Item);
            written(item, item, new Map(Object.entries(item)), [], 2);
          } else if (part.Update) {
            const { set, removed } = updated(body);
            written(plain(body.Key as Item), undefined, set, removed, 2);
          } else if (part.Delete) deleted(plain(body.Key as Item), 2);
          else {
            const key = plain(body.Key as Item);
            add(`table ${String(key.pk)}`, "write", Math.max(1, Math.ceil(sizeOf(keyOf(key)) / 1024)) * 2);
          }
        }
        break;
      case "GetItemCommand": {
        const key = plain(input.Key as Item);
        read(key, sizeOf(keyOf(key), 0), input.ConsistentRead === true);
        break;
      }
      case "BatchGetItemCommand":
        for (const request of Object.values((input.RequestItems ?? {}) as Record<string, Item>))
          for (const key of (request.Keys as Item[]).map(plain))
            read(key, sizeOf(keyOf(key), 0), request.ConsistentRead === true);
        break;
      case "TransactGetItemsCommand":
        for (const part of (input.TransactItems ?? []) as Item[]) {
          const key = plain((part.Get as Item).Key as Item);
          read(key, sizeOf(keyOf(key), 0), true, 2);
        }
        break;
      case "QueryCommand": {
        const partition = queriedPartition(input);
        // Entries evaluated: their size is not known here; DynamoDB Local's consumed units stand for it, at least
        // one half unit (a Query of nothing still costs one).
        const minimum = input.ConsistentRead === true ? 1 : 0.5;
        add(partition, "read", Math.max(minimum, call.readUnits));
        if (!input.IndexName) {
          // The sort-key bound names what was read (`WALLET#SHARD#`, `ANALYTICS#H#…`).
          const values = Object.values(plain(input.ExpressionAttributeValues as Item | undefined)).map(String);
          const pk = partition.slice("table ".length);
          readItem(`${pk}|${values.find((value) => value !== pk) ?? ""}`, Math.max(minimum, call.readUnits));
        }
        break;
      }
    }
  }
  return { units, byItem, readsByItem };
}

/** `gsiN <pk value>` (or `table <pk>`) of a Query, from its key condition. */
function queriedPartition(input: Item): string {
  const values = plain(input.ExpressionAttributeValues as Item | undefined);
  const match = /^\s*\(?\s*([#\w]+)\s*=\s*(:\w+)/.exec(String(input.KeyConditionExpression ?? ""));
  const value = match ? values[match[2]!] : "?";
  return `${(input.IndexName as string | undefined) ?? "table"} ${String(value)}`;
}

/** A partition key with ids replaced, so the partitions of one kind group together (`ORG#<org>#LEAD#<id>`). */
export function partitionKind(partition: string, organizationId: string): string {
  return (
    partition
      .replaceAll(organizationId, "<org>")
      .replace(/[0-9A-HJKMNP-TV-Z]{26}/g, "<id>")
      // A carrier's message or call id (Twilio's and the simulator's `SM`/`CA` + 32 hex): a provider-message pointer.
      .replace(/\b(SM|CA)[0-9a-f]{32}\b/g, "<id>")
      .replace(/\+\d{8,15}/g, "<phone>")
      .replace(/#\d+(?=#|$)/g, "#<n>")
      .replace(/\d{4}-\d\d-\d\d[T\d:.Z-]*/g, "<time>")
  );
}
