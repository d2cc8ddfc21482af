import type { TransactItem } from "#core/db/transact";
import { computed, where } from "#core/db/expression";
import { AnalyticsHistogramEntity, AnalyticsLeadEntity, AnalyticsRollupEntity } from "#core/db/entities/analytics";
import { dayBucket, hourBucket, minuteBucket, secondBucket, weekBucket } from "#core/analytics/range";
import { minuteExpiresAt, minuteKept } from "#core/analytics/minutes";
import type { Counters } from "#core/analytics/counters";

/**
 * The items of the analytics write side: per-organization second, minute, hour, day and
 * week counters, so a report reads a few hundred rollup items instead of every event.
 * They are written off the request path by the stream aggregator
 * (core/analytics/aggregator.ts), which counts each fact once; the unread index
 * below is kept by messaging's hooks.
 */

export type Level = "S" | "M" | "H" | "D" | "W";
/** The fine levels (second, minute): read only at a window's edges, kept two years, histogram counters as plain numbers. */
export type FineLevel = Extract<Level, "S" | "M">;
export const isFine = (level: Level): level is FineLevel => level === "S" || level === "M";
/** Levels whose response-time histograms live in a histogram item beside the rollup item. */
export type HistogramLevel = Exclude<Level, FineLevel>;
/** Every fact is added to its hour, its day and its ISO week (the levels with histogram items)… */
export const levels: [HistogramLevel, (t: number) => string][] = [
  ["H", hourBucket],
  ["D", dayBucket],
  ["W", weekBucket],
];
const fineLevels: [FineLevel, (t: number) => string][] = [
  ["M", minuteBucket],
  ["S", secondBucket],
];
/** …and to its minute and second while those items are still read (core/analytics/minutes). */
export const levelsOf = (at: number): [Level, (t: number) => string][] =>
  minuteKept(at) ? [...fineLevels, ...levels] : levels;

/** Start (epoch ms) of a fine bucket (`2026-01-05T14:07`, `2026-01-05T14:07:33`). */
const fineStart = (level: FineLevel, bucket: string) =>
  Date.parse(level === "M" ? `${bucket}:00.000Z` : `${bucket}.000Z`);

/**
 * Response-time histograms (`h#<minutes>`, `hs#<source>#<minutes>`) are stored
 * packed in one JSON string attribute `hist` of a histogram item beside each
 * rollup item, not as one attribute per value: a 365-day report then reads ~110
 * compact items (and the previous period's lead count skips the histograms). A
 * string cannot be ADDed to, so it is rewritten under an optimistic version `hv`.
 */
export const isHistogram = (name: string) => name.startsWith("h#") || name.startsWith("hs#") || name.startsWith("ha#");

/** A histogram rewrite of one rollup item: the new packed value and the version it was read at. */
export interface HistogramWrite {
  hist: Counters;
  /** Version read (undefined: the item had none yet); the write is conditional on it. */
  readVersion: number | undefined;
}

/**
 * Adds numeric `counters` to one rollup item (an update item); a minute or second item also gets its TTL. `counted`:
 * the events whose counters these are, for a second item that is their count-once marker (`counted`, a string set,
 * not a counter: reads take only numbers): the update holds only while none of them is in it, and adds them.
 */
export function rollupUpdate(
  organizationId: string,
  level: Level,
  bucket: string,
  counters: Counters,
  counted: readonly string[] = [],
): TransactItem {
  const adds = Object.fromEntries(Object.entries(counters).map(([name, amount]) => [name, computed.add(amount)]));
  return {
    Update: AnalyticsRollupEntity.update(
      { organizationId, level, bucket },
      {
        entity: AnalyticsRollupEntity.name,
        ...(isFine(level) ? { expiresAt: minuteExpiresAt(fineStart(level, bucket)) } : {}),
        ...adds,
        ...(counted.length ? { [countedAttribute]: computed.addToSet(...counted) } : {}),
      },
      counted.length
        ? { condition: where.all(...counted.map((eventId) => where.not(where.contains(countedAttribute, eventId)))) }
        : {},
    ),
  };
}

/** The attribute of a second item holding the ids of the events counted in it (their count-once marker). */
export const countedAttribute = "counted";

/**
 * At most this many events are marked counted in one second item per transaction: each adds a `contains` test to the
 * item's condition, and an expression is at most 4 KB.
 */
export const maxCountedPerUpdate = 40;

/** Rewrites the histogram item of one bucket, on condition nobody rewrote it since it was read (an update item). */
export function histogramUpdate(
  organizationId: string,
  level: HistogramLevel,
  bucket: string,
  histogram: HistogramWrite,
): TransactItem {
  return {
    Update: AnalyticsHistogramEntity.update(
      { organizationId, level, bucket },
      {
        entity: AnalyticsHistogramEntity.name,
        hist: packHistogram(histogram.hist),
        hv: (histogram.readVersion ?? 0) + 1,
      },
      {
        condition: histogram.readVersion === undefined ? where.absent("hv") : where.equals("hv", histogram.readVersion),
      },
    ),
  };
}

export const maxCountersPerUpdate = 100;

const numeric = (counters: Counters) =>
  Object.fromEntries(Object.entries(counters).filter(([name, amount]) => amount !== 0 && !isHistogram(name)));

/**
 * Adds `counters` to the rollups of time `at` (update items of one transaction): the numeric ones to its hour, day and
 * week, and all of them to its minute and second, which keep their few histogram counters as plain numbers (ADD, no rewrite).
 */
export function rollupUpdates(organizationId: string, at: number, counters: Counters): TransactItem[] {
  const plain = numeric(counters);
  const all = Object.fromEntries(Object.entries(counters).filter(([, amount]) => amount !== 0));
  const hours =
    Object.keys(plain).length === 0
      ? []
      : levels.map(([level, bucketOf]) => rollupUpdate(organizationId, level, bucketOf(at), plain));
  if (!minuteKept(at) || Object.keys(all).length === 0) return hours;
  return [...hours, ...fineLevels.map(([level, bucketOf]) => rollupUpdate(organizationId, level, bucketOf(at), all))];
}

/**
 * A response-time histogram as stored and read: whole minutes → leads answered after that long, overall (`h`) and per
 * source (`s`). Reads merge these directly (a 365-day report merges ~100 of them), without going through string-keyed
 * counters.
 */
export interface Histogram {
  h: Record<string, number>;
  s: Record<string, Record<string, number>>;
  /** Per assigned agent (user id), the leaderboard's medians. */
  a: Record<string, Record<string, number>>;
}

export const emptyHistogram = (): Histogram => ({ h: {}, s: {}, a: {} });

/** The keyed parts of a histogram and the prefix of their counters (`hs#<source>#<minutes>`, `ha#<user>#<minutes>`). */
const dimensions = [
  ["s", "hs#"],
  ["a", "ha#"],
] as const;

/** The histogram part (`h#<minutes>`, `hs#<source>#<minutes>`) of some counters. */
export function histogramOf(counters: Counters): Histogram {
  const histogram = emptyHistogram();
  for (const [name, count] of Object.entries(counters)) {
    if (name.startsWith("h#")) histogram.h[name.slice(2)] = count;
    for (const [part, prefix] of dimensions) {
      if (!name.startsWith(prefix)) continue;
      const split = name.lastIndexOf("#");
      (histogram[part][name.slice(prefix.length, split)] ??= {})[name.slice(split + 1)] = count;
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
  for (const [part] of dimensions) for (const key in more[part]) add((into[part][key] ??= {}), more[part][key]!);
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
  return { h: packed.h ?? {}, s: packed.s ?? {}, a: packed.a ?? {} };
}

/** The packed histogram of a stored histogram item, as counters (the write side merges one response into it). */
export function unpackHistogram(item: Record<string, unknown> | undefined): Counters {
  const histogram = parseHistogram(item);
  const counters: Counters = {};
  for (const [minutes, count] of Object.entries(histogram.h)) counters[`h#${minutes}`] = count;
  for (const [part, prefix] of dimensions) {
    for (const [key, counts] of Object.entries(histogram[part])) {
      for (const [minutes, count] of Object.entries(counts)) counters[`${prefix}${key}#${minutes}`] = count;
    }
  }
  return counters;
}

type CountedLead = { leadId: string; sourceId: string | null; priceUnits: number; assignedUserId?: string | null };

/** The per-lead analytics record of a counted lead (the lead's creation time is its ULID's). */
export function leadRecord(organizationId: string, lead: CountedLead) {
  return {
    organizationId,
    leadId: lead.leadId,
    sourceId: lead.sourceId,
    priceUnits: lead.priceUnits,
    // The agent the lead was assigned to when counted: its response counts on that agent's leaderboard row.
    assignedUserId: lead.assignedUserId ?? null,
  };
}

/** The per-lead analytics item of a counted lead: its key and its entry among the organization's counted leads. */
export function leadItem(organizationId: string, lead: CountedLead) {
  const facts = leadRecord(organizationId, lead);
  return { ...AnalyticsLeadEntity.item(facts), ...facts };
}

export { talkSeconds as callSeconds } from "#core/calls/duration";
