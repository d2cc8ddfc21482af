import { decodeTime } from "ulid";
import { table, writeItems } from "#core/db/items";
import type { EventRecord } from "#core/events/index";
import {
  effectOf,
  leadCounters,
  mergeCounters,
  responseCounters,
  responseSecondsOf,
  type Counters,
} from "#core/analytics/counters";
import {
  dayBucket,
  floorDay,
  floorHour,
  floorMinute,
  floorSecond,
  floorWeek,
  hourBucket,
  minuteBucket,
  secondBucket,
  weekBucket,
} from "#core/analytics/range";
import {
  histogramUpdate,
  isFine,
  isHistogram,
  leadItem,
  maxCountersPerUpdate,
  rollupUpdate,
  type Level,
} from "#core/analytics/rollups";
import { minuteKept, setMinuteRollupsFrom } from "#core/analytics/minutes";

/**
 * Builds an organization's rollups from a batch of event records in one pass:
 * the same counting rules as the live hook (effectOf, leadCounters,
 * responseCounters: a lead counts once, only its first response counts), but
 * summed per second, minute, hour, day and week in memory and written as one ADD per
 * rollup item, plus one per-lead item per lead; minute and second rollups then answer edges
 * from the start (`minuteRollupsFrom`, `secondRollupsFrom` 0). It writes no per-event markers, so it is for
 * an organization whose rollups start empty (a rebuild, a migration, the
 * benchmark's seeding), never for events the live hook has counted already.
 */
export interface BackfillLookups {
  /** Source and price (1/10 000 units) of a lead, as the live hook reads them from the lead. */
  lead(leadId: string): { sourceId: string | null; priceUnits: number } | undefined;
  /** Talk seconds of a completed call, as the live hook reads them from the call. */
  callSeconds(callId: string): number;
  /**
   * Which minute items (and their second items) to write (default: every minute still read, as the aggregator). The benchmark writes only the
   * minutes near its window's edges, as it stores only the event records near them.
   */
  writeMinute?(minuteStart: number): boolean;
}

export interface BackfillResult {
  events: number;
  leads: number;
  rollupItems: number;
  leadItems: number;
}

const parallel = 16;

async function inParallel<T>(items: T[], work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(parallel, items.length) }, async () => {
      while (next < items.length) await work(items[next++]!);
    }),
  );
}

async function batchPut(items: Record<string, unknown>[]): Promise<void> {
  const chunks: Record<string, unknown>[][] = [];
  for (let index = 0; index < items.length; index += 25) chunks.push(items.slice(index, index + 25));
  await inParallel(chunks, (chunk) => writeItems(chunk.map((Item) => ({ PutRequest: { Item } }))));
}

/** Stores event records as they are (the records a report reads exactly at the edges of a range). */
export async function storeEventItems(items: Record<string, unknown>[]): Promise<void> {
  await batchPut(items);
}

/** Counts `events` (any order) into empty rollups; see the module comment. */
export async function backfill(
  organizationId: string,
  events: EventRecord[],
  lookups: BackfillLookups,
): Promise<BackfillResult> {
  const writeMinute = lookups.writeMinute ?? ((start: number) => minuteKept(start));
  const minutes = new Map<number, Counters>();
  /** Only the seconds of minutes written (a year of seconds would not fit in memory, and is never read). */
  const seconds = new Map<number, Counters>();
  const add = (at: number, counters: Counters) => {
    const minute = floorMinute(at);
    mergeCounters(minutes.get(minute) ?? minutes.set(minute, {}).get(minute)!, counters);
    if (!writeMinute(minute)) return;
    const second = floorSecond(at);
    mergeCounters(seconds.get(second) ?? seconds.set(second, {}).get(second)!, counters);
  };
  const leads = new Map<string, ReturnType<typeof leadItem> & { respondedAt?: string; responseSeconds?: number }>();
  /** Lead id → the time of its earliest response. */
  const firstResponses = new Map<string, number>();
  const ordered = [...events].sort((a, b) => a.createdAt.localeCompare(b.createdAt));
  for (const event of ordered) {
    const effect = effectOf(event);
    const at = Date.parse(event.createdAt);
    if (effect.completedCallId)
      mergeCounters(effect.counters, { callSeconds: lookups.callSeconds(effect.completedCallId) });
    add(at, effect.counters);
    const created = effect.leadCreated;
    const known = created ? lookups.lead(created.leadId) : undefined;
    if (created && known && !leads.has(created.leadId)) {
      leads.set(created.leadId, leadItem(organizationId, { leadId: created.leadId, ...known }));
      add(decodeTime(created.leadId), leadCounters(known, known.priceUnits));
    }
    const response = effect.response;
    const earliest = response && firstResponses.get(response.leadId);
    if (response && (earliest === undefined || response.at < earliest))
      firstResponses.set(response.leadId, response.at);
  }
  // A lead's first response is its earliest, even one sent before the lead was processed (before its LeadCreated).
  for (const [leadId, at] of firstResponses) {
    const lead = leads.get(leadId);
    if (!lead) continue;
    const createdAt = decodeTime(leadId);
    const seconds = responseSecondsOf(createdAt, at);
    Object.assign(lead, { respondedAt: new Date(at).toISOString(), responseSeconds: seconds });
    add(createdAt, responseCounters(lead, seconds));
  }
  const hours = rollUp(minutes, floorHour);
  const days = rollUp(hours, floorDay);
  const weeks = rollUp(days, floorWeek);
  const kept = new Map([...minutes].filter(([start]) => writeMinute(start)));
  await setMinuteRollupsFrom(organizationId, 0);
  const updates = (
    [
      ["S", seconds, secondBucket],
      ["M", kept, minuteBucket],
      ["H", hours, hourBucket],
      ["D", days, dayBucket],
      ["W", weeks, weekBucket],
    ] as const
  ).flatMap(([level, buckets, bucketOf]) =>
    [...buckets].flatMap(([start, counters]) => updatesOf(organizationId, level, bucketOf(start), counters)),
  );
  await inParallel(updates, async (update) => {
    await table.update(update.Update!);
  });
  await batchPut([...leads.values()]);
  return {
    events: events.length,
    leads: leads.size,
    rollupItems: seconds.size + kept.size + hours.size + days.size + weeks.size,
    leadItems: leads.size,
  };
}

/** Sums finer buckets into coarser ones (hours into days, days into weeks). */
function rollUp(finer: Map<number, Counters>, floor: (t: number) => number): Map<number, Counters> {
  const coarser = new Map<number, Counters>();
  for (const [start, counters] of finer) {
    const key = floor(start);
    mergeCounters(coarser.get(key) ?? coarser.set(key, {}).get(key)!, counters);
  }
  return coarser;
}

/**
 * The writes of one bucket: numeric ADDs in expression-sized parts, and its histogram item (which must not exist yet);
 * a minute or second item keeps its histogram counters as plain numbers, as the aggregator writes them.
 */
function updatesOf(organizationId: string, level: Level, bucket: string, counters: Counters) {
  if (isFine(level)) return chunked(counters).map((part) => rollupUpdate(organizationId, level, bucket, part));
  const hist = Object.fromEntries(Object.entries(counters).filter(([name]) => isHistogram(name)));
  const parts = chunked(Object.fromEntries(Object.entries(counters).filter(([name]) => !isHistogram(name))));
  if (parts.length === 0) parts.push({});
  const updates = parts.map((part) => rollupUpdate(organizationId, level, bucket, part));
  if (Object.keys(hist).length > 0)
    updates.push(histogramUpdate(organizationId, level, bucket, { hist, readVersion: undefined }));
  return updates;
}

function chunked(counters: Counters): Counters[] {
  const entries = Object.entries(counters).filter(([, amount]) => amount !== 0);
  const parts: Counters[] = [];
  for (let index = 0; index < entries.length; index += maxCountersPerUpdate)
    parts.push(Object.fromEntries(entries.slice(index, index + maxCountersPerUpdate)));
  return parts;
}
