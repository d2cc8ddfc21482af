import { DeleteCommand, GetCommand, UpdateCommand } from "@aws-sdk/lib-dynamodb";
import { decodeTime } from "ulid";
import { TransactionConditionFailed, transact, type TransactItem } from "#core/billing/transactions";
import { db, tableName } from "#core/db/client";
import { entities, keys } from "#core/db/keys";
import type { EventRecord } from "#core/events/index";
import { dayBucket, hourBucket, weekBucket } from "#core/analytics/range";
import { effectOf, leadCounters, mergeCounters, responseCounters, responseSecondsOf, toUnits, type Counters } from "#core/analytics/counters";

/**
 * The write side of analytics: per-organization hour and day counters kept up
 * to date as events are recorded, so a report reads a few hundred rollup items
 * instead of every event.
 *
 * Each counted fact is written in one transaction with a marker that makes it
 * count once (docs/analytics.md, "Counting once"):
 * - an event's own counters: the marker is `analyticsCountedAt` set on the event
 *   record itself, on condition it is not set yet;
 * - a lead accepted: the marker is the per-lead analytics item, put on condition
 *   it does not exist;
 * - a lead's first response: the marker is `respondedAt` set on that per-lead
 *   item, on condition it is not set yet.
 * A redelivered or repeated call therefore fails its condition and adds nothing.
 */

export type Level = "H" | "D" | "W";
/** Every fact is added to its hour, its day and its ISO week. */
export const levels: [Level, (t: number) => string][] = [
  ["H", hourBucket],
  ["D", dayBucket],
  ["W", weekBucket],
];

/**
 * Response-time histograms (`h#<minutes>`, `hs#<source>#<minutes>`) are stored
 * packed in one JSON string attribute `hist` of a histogram item beside each
 * rollup item, not as one attribute per value: a 365-day report then reads ~110
 * compact items (and the previous period's lead count skips the histograms). A
 * string cannot be ADDed to, so it is rewritten under an optimistic version `hv`.
 */
export const isHistogram = (name: string) => name.startsWith("h#") || name.startsWith("hs#");

/** A histogram rewrite of one rollup item: the new packed value and the version it was read at. */
export interface HistogramWrite {
  hist: Counters;
  /** Version read (undefined: the item had none yet); the write is conditional on it. */
  readVersion: number | undefined;
}

/** Adds numeric `counters` to one rollup item (an update item). */
export function rollupUpdate(organizationId: string, level: Level, bucket: string, counters: Counters): TransactItem {
  const names: Record<string, string> = { "#entity": "entity" };
  const values: Record<string, unknown> = { ":entity": entities.analyticsRollup };
  const adds = Object.entries(counters).map(([name, amount], index) => {
    names[`#c${index}`] = name;
    values[`:c${index}`] = amount;
    return `#c${index} :c${index}`;
  });
  return {
    Update: {
      TableName: tableName(),
      Key: keys.analyticsRollup(organizationId, level, bucket),
      UpdateExpression: `SET #entity = :entity${adds.length ? ` ADD ${adds.join(", ")}` : ""}`,
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: values,
    },
  };
}

/** Rewrites the histogram item of one bucket, on condition nobody rewrote it since it was read (an update item). */
export function histogramUpdate(organizationId: string, level: Level, bucket: string, histogram: HistogramWrite): TransactItem {
  const values: Record<string, unknown> = {
    ":entity": entities.analyticsHistogram,
    ":hist": packHistogram(histogram.hist),
    ":nextVersion": (histogram.readVersion ?? 0) + 1,
  };
  if (histogram.readVersion !== undefined) values[":readVersion"] = histogram.readVersion;
  return {
    Update: {
      TableName: tableName(),
      Key: keys.analyticsHistogram(organizationId, level, bucket),
      UpdateExpression: "SET #entity = :entity, hist = :hist, hv = :nextVersion",
      ConditionExpression: histogram.readVersion === undefined ? "attribute_not_exists(hv)" : "hv = :readVersion",
      ExpressionAttributeNames: { "#entity": "entity" },
      ExpressionAttributeValues: values,
    },
  };
}

export const maxCountersPerUpdate = 100;

const numeric = (counters: Counters) => Object.fromEntries(Object.entries(counters).filter(([name, amount]) => amount !== 0 && !isHistogram(name)));

/** Adds numeric `counters` to the hour, day and week rollups of time `at` (update items of one transaction). */
export function rollupUpdates(organizationId: string, at: number, counters: Counters): TransactItem[] {
  const plain = numeric(counters);
  if (Object.keys(plain).length === 0) return [];
  return levels.map(([level, bucketOf]) => rollupUpdate(organizationId, level, bucketOf(at), plain));
}

/**
 * A response-time histogram as stored and read: whole minutes → leads answered after that long, overall (`h`) and per
 * source (`s`). Reads merge these directly (a 365-day report merges ~100 of them), without going through string-keyed
 * counters.
 */
export interface Histogram {
  h: Record<string, number>;
  s: Record<string, Record<string, number>>;
}

export const emptyHistogram = (): Histogram => ({ h: {}, s: {} });

/** The histogram part (`h#<minutes>`, `hs#<source>#<minutes>`) of some counters. */
export function histogramOf(counters: Counters): Histogram {
  const histogram = emptyHistogram();
  for (const [name, count] of Object.entries(counters)) {
    if (name.startsWith("h#")) histogram.h[name.slice(2)] = count;
    else if (name.startsWith("hs#")) {
      const split = name.lastIndexOf("#");
      (histogram.s[name.slice(3, split)] ??= {})[name.slice(split + 1)] = count;
    }
  }
  return histogram;
}

/** Adds `more` into `into` (in place) and answers `into`. */
export function mergeHistograms(into: Histogram, more: Histogram): Histogram {
  const add = (target: Record<string, number>, counts: Record<string, number>) => {
    for (const minutes in counts) target[minutes] = (target[minutes] ?? 0) + counts[minutes]!;
  };
  add(into.h, more.h);
  for (const source in more.s) add((into.s[source] ??= {}), more.s[source]!);
  return into;
}

/** Packed form of the histogram counters: `{ "h": { minutes: count }, "s": { source: { minutes: count } } }` (no repeated names). */
export function packHistogram(hist: Counters): string {
  return JSON.stringify(histogramOf(hist));
}

/** The packed histogram of a stored histogram item. */
export function parseHistogram(item: Record<string, unknown> | undefined): Histogram {
  if (typeof item?.hist !== "string") return emptyHistogram();
  const packed = JSON.parse(item.hist) as Partial<Histogram>;
  return { h: packed.h ?? {}, s: packed.s ?? {} };
}

/** The packed histogram of a stored histogram item, as counters (the write side merges one response into it). */
export function unpackHistogram(item: Record<string, unknown> | undefined): Counters {
  const histogram = parseHistogram(item);
  const counters: Counters = {};
  for (const [minutes, count] of Object.entries(histogram.h)) counters[`h#${minutes}`] = count;
  for (const [source, counts] of Object.entries(histogram.s)) {
    for (const [minutes, count] of Object.entries(counts)) counters[`hs#${source}#${minutes}`] = count;
  }
  return counters;
}

/** The per-lead analytics item of a counted lead (the lead's creation time is its ULID's). */
export function leadItem(organizationId: string, lead: { leadId: string; sourceId: string | null; priceUnits: number }) {
  return {
    ...keys.analyticsLead(organizationId, lead.leadId),
    entity: entities.analyticsLead,
    leadId: lead.leadId,
    sourceId: lead.sourceId,
    priceUnits: lead.priceUnits,
  };
}

/** Runs one counting transaction; false when its marker says it was already counted. */
async function countOnce(items: TransactItem[]): Promise<boolean> {
  try {
    await transact(items);
    return true;
  } catch (error) {
    if (error instanceof TransactionConditionFailed && error.failedIndexes.includes(0)) return false;
    throw error;
  }
}

async function countEvent(organizationId: string, event: EventRecord, counters: Counters): Promise<void> {
  const updates = rollupUpdates(organizationId, Date.parse(event.createdAt), counters);
  if (updates.length === 0) return;
  await countOnce([
    {
      Update: {
        TableName: tableName(),
        Key: keys.event(organizationId, event.id),
        UpdateExpression: "SET analyticsCountedAt = :now",
        ConditionExpression: "attribute_exists(pk) AND attribute_not_exists(analyticsCountedAt)",
        ExpressionAttributeValues: { ":now": new Date().toISOString() },
      },
    },
    ...updates,
  ]);
}

async function countLead(organizationId: string, leadId: string): Promise<void> {
  const { Item } = await db().send(
    new GetCommand({
      TableName: tableName(),
      Key: keys.lead(organizationId, leadId),
      ProjectionExpression: "sourceId, metadata.price",
      ConsistentRead: true,
    }),
  );
  if (!Item) return;
  const lead = { leadId, sourceId: (Item.sourceId as string | null) ?? null, priceUnits: toUnits((Item.metadata as { price?: string } | undefined)?.price) };
  await countOnce([
    { Put: { TableName: tableName(), Item: leadItem(organizationId, lead), ConditionExpression: "attribute_not_exists(pk)" } },
    ...rollupUpdates(organizationId, decodeTime(leadId), leadCounters(lead.sourceId, lead.priceUnits)),
  ]);
}

/**
 * The first response of a counted lead; later ones (and responses to leads never
 * counted) add nothing. The histograms of the lead's hour, day and week are
 * rewritten from what was read; a concurrent rewrite fails the version check and
 * the whole transaction is retried from a fresh read.
 */
async function countResponse(organizationId: string, response: { leadId: string; at: number }): Promise<void> {
  const key = keys.analyticsLead(organizationId, response.leadId);
  for (let attempt = 1; ; attempt++) {
    const { Item } = await db().send(new GetCommand({ TableName: tableName(), Key: key, ConsistentRead: true }));
    if (!Item || Item.respondedAt) return;
    const createdAt = decodeTime(response.leadId);
    const seconds = responseSecondsOf(createdAt, response.at);
    const counters = responseCounters(Item.sourceId as string | null, seconds);
    const histogramPart = Object.fromEntries(Object.entries(counters).filter(([name]) => isHistogram(name)));
    const histograms = await Promise.all(
      levels.map(async ([level, bucketOf]) => {
        const histogramKey = keys.analyticsHistogram(organizationId, level, bucketOf(createdAt));
        const { Item: stored } = await db().send(new GetCommand({ TableName: tableName(), Key: histogramKey, ConsistentRead: true }));
        const hist = mergeCounters(unpackHistogram(stored), histogramPart);
        return histogramUpdate(organizationId, level, bucketOf(createdAt), { hist, readVersion: stored?.hv as number | undefined });
      }),
    );
    const updates = [...rollupUpdates(organizationId, createdAt, counters), ...histograms];
    try {
      await transact([
        {
          Update: {
            TableName: tableName(),
            Key: key,
            UpdateExpression: "SET respondedAt = :at, responseSeconds = :seconds",
            ConditionExpression: "attribute_exists(pk) AND attribute_not_exists(respondedAt)",
            ExpressionAttributeValues: { ":at": new Date(response.at).toISOString(), ":seconds": seconds },
          },
        },
        ...updates,
      ]);
      return;
    } catch (error) {
      if (!(error instanceof TransactionConditionFailed)) throw error;
      if (error.failedIndexes.includes(0) || attempt >= 10) return;
    }
  }
}

/** Talk seconds of a completed call, from the call record (event records carry no duration). */
export async function callSeconds(organizationId: string, callId: string): Promise<number> {
  const { Item } = await db().send(new GetCommand({ TableName: tableName(), Key: keys.call(organizationId, callId), ProjectionExpression: "#d", ExpressionAttributeNames: { "#d": "duration" } }));
  const duration = Number(Item?.duration ?? 0);
  return Number.isFinite(duration) && duration > 0 ? Math.round(duration) : 0;
}

async function milestone(organizationId: string, name: "firstDeliveredAt" | "firstSourcedLeadAt", at: string): Promise<void> {
  await db().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: keys.analyticsMilestones(organizationId),
      UpdateExpression: "SET #entity = :entity, #name = if_not_exists(#name, :at)",
      ExpressionAttributeNames: { "#entity": "entity", "#name": name },
      ExpressionAttributeValues: { ":entity": entities.analyticsMilestones, ":at": at },
    }),
  );
}

/** Applies one recorded event to the rollups. Throws on storage errors; see `onEventRecorded`. */
export async function applyEvent(organizationId: string, event: EventRecord): Promise<void> {
  const effect = effectOf(event);
  if (effect.completedCallId) {
    const seconds = await callSeconds(organizationId, effect.completedCallId);
    if (seconds > 0) effect.counters.callSeconds = (effect.counters.callSeconds ?? 0) + seconds;
  }
  await countEvent(organizationId, event, effect.counters);
  if (effect.leadCreated) {
    await countLead(organizationId, effect.leadCreated.leadId);
    if (event.sourceId) await milestone(organizationId, "firstSourcedLeadAt", event.createdAt);
  }
  if (effect.response) await countResponse(organizationId, effect.response);
  if (effect.delivered) await milestone(organizationId, "firstDeliveredAt", event.createdAt);
}

export const Rollups = {
  /**
   * The hook `recordEvent` (core/events) calls after storing an event. Cheap
   * (events that change no figure cost no write) and failure-safe: it never
   * throws, so analytics can never fail the operation that recorded the event;
   * a failure is logged with the event id.
   */
  async onEventRecorded(organizationId: string, event: EventRecord): Promise<void> {
    try {
      await applyEvent(organizationId, event);
    } catch (error) {
      console.error(JSON.stringify({ level: "error", message: "analytics rollup not updated", organizationId, eventId: event.id, eventType: event.eventType, error: String(error) }));
    }
  },

  /** Messaging marks a conversation unread: one more unread message, and since when. Never throws. */
  async onUnread(organizationId: string, conversationId: string, at: string): Promise<void> {
    await db()
      .send(
        new UpdateCommand({
          TableName: tableName(),
          Key: keys.analyticsUnread(organizationId, conversationId),
          UpdateExpression: "SET #entity = :entity, conversationId = :id, oldestUnreadAt = if_not_exists(oldestUnreadAt, :at), lastUnreadAt = :at ADD unreadCount :one",
          ExpressionAttributeNames: { "#entity": "entity" },
          ExpressionAttributeValues: { ":entity": entities.analyticsUnread, ":id": conversationId, ":at": at, ":one": 1 },
        }),
      )
      .catch((error: unknown) => console.error(JSON.stringify({ level: "error", message: "analytics unread not updated", organizationId, conversationId, error: String(error) })));
  },

  /** Messaging marks a conversation read: it leaves the unread index (unless a newer message arrived since `readAt`). Never throws. */
  async onRead(organizationId: string, conversationId: string, readAt: string): Promise<void> {
    await db()
      .send(
        new DeleteCommand({
          TableName: tableName(),
          Key: keys.analyticsUnread(organizationId, conversationId),
          ConditionExpression: "attribute_not_exists(lastUnreadAt) OR lastUnreadAt <= :readAt",
          ExpressionAttributeValues: { ":readAt": readAt },
        }),
      )
      .catch((error: unknown) => {
        if ((error as Error).name !== "ConditionalCheckFailedException") {
          console.error(JSON.stringify({ level: "error", message: "analytics unread not cleared", organizationId, conversationId, error: String(error) }));
        }
      });
  },
};
