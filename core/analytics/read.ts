import { decodeTime } from "ulid";
import * as Events from "#core/events/index";
import { type EventRecord } from "#core/events/index";
import { queryAll } from "#core/db/query";
import type { KeyRange } from "#core/db/entity";
import { AnalyticsHistogramEntity, AnalyticsLeadEntity, AnalyticsRollupEntity } from "#core/db/entities/analytics";
import { ulidCeiling, ulidFloor } from "#core/shared/ids";
import {
  callSeconds,
  emptyHistogram,
  histogramOf,
  isFine,
  isHistogram,
  mergeHistograms,
  parseHistogram,
  type Histogram,
  type Level,
} from "#core/analytics/rollups";
import {
  countedEventTypes,
  counter,
  effectOf,
  leadCounters,
  mergeCounters,
  responseCounters,
  type Counters,
} from "#core/analytics/counters";
import {
  bucketsOf,
  piecesOf,
  type Bucket,
  type FineRollupsFrom,
  type Granularity,
  type Piece,
  type TimeRange,
} from "#core/analytics/range";
import { storedFineRollupsFrom } from "#core/analytics/minutes";

/**
 * The read side: a range's counters, per trend bucket and in total, from the
 * rollups (whole weeks, days and hours, the whole minutes of the sub-hour
 * edges and the whole seconds of their partial minutes); only times before the
 * fine rollups began are read exactly from the records. A 365-day report reads
 * about 110 week, day and hour items and at most 118 minute and 118 second
 * items, however many events a minute holds; it never reads the period's events.
 */

export interface RangeFigures {
  /** Every counter of the range except the response-time histogram. */
  totals: Counters;
  /** The range's response-time histogram (medians). */
  histogram: Histogram;
  /** Per trend bucket; `histogram` only when asked for (the CSV's per-bucket medians). */
  buckets: { bucket: Bucket; counters: Counters; histogram?: Histogram }[];
}

/** What one rollup piece or exact edge contributes. */
interface Contribution {
  counters: Counters;
  histogram?: Histogram;
}

/** A stored per-lead analytics item (core/analytics/rollups). */
export interface LeadFact {
  leadId: string;
  sourceId: string | null;
  priceUnits: number;
  assignedUserId: string | null;
  respondedAt?: string;
  responseSeconds?: number;
}

const notCounters = new Set(["pk", "sk", "entity", "hv", "expiresAt"]);

export { prefixItems } from "#core/db/query";

/** A rollup item's counters: its numeric attributes. */
function countersOf(item: Record<string, unknown>): Counters {
  const counters: Counters = {};
  for (const [name, value] of Object.entries(item))
    if (!notCounters.has(name) && typeof value === "number") counters[name] = value;
  return counters;
}

/**
 * The sort-key range of the leads created in [start, end) among an organization's counted leads (ULID ids): from the
 * smallest ULID of `start`'s millisecond to the largest of the last one's. The floor is the time's own encoding, so a
 * window from the epoch (0) starts there, not at the current time (`ulid(0)` takes 0 for "no time given").
 */
export function creationWindow(organizationId: string, range: TimeRange): KeyRange {
  const prefix = AnalyticsLeadEntity.sortKey("byCreation", { organizationId });
  return { between: [`${prefix}${ulidFloor(range.start)}`, `${prefix}${ulidCeiling(range.end - 1)}`] };
}

/** Per-lead analytics items of leads created in [start, end). */
export async function leadFacts(organizationId: string, range: TimeRange): Promise<LeadFact[]> {
  // Each counted lead is in a partition of its own (issue 27): the window is a key range of their sharded index.
  const items = await queryAll(
    AnalyticsLeadEntity.query("byCreation", { organizationId }, { range: creationWindow(organizationId, range) }),
  );
  return items.map((item) => ({
    leadId: item.leadId as string,
    sourceId: (item.sourceId as string | null) ?? null,
    priceUnits: Number(item.priceUnits ?? 0),
    assignedUserId: (item.assignedUserId as string | null | undefined) ?? null,
    ...(item.respondedAt
      ? { respondedAt: item.respondedAt as string, responseSeconds: Number(item.responseSeconds ?? 0) }
      : {}),
  }));
}

/** What one counted lead contributes (the same counters the rollups received for it). */
export function factCounters(fact: LeadFact): Counters {
  const counters = leadCounters(fact, fact.priceUnits);
  return fact.respondedAt ? mergeCounters(counters, responseCounters(fact, fact.responseSeconds ?? 0)) : counters;
}

/** Splits counters that include `h#`/`hs#` histogram counters into the plain ones and the histogram. */
function splitHistogram(all: Counters): Required<Contribution> {
  const counters: Counters = {};
  for (const [name, value] of Object.entries(all)) if (!isHistogram(name)) counters[name] = value;
  return { counters, histogram: histogramOf(all) };
}

/** Exact figures of a sub-hour window, from the event records and per-lead items themselves (times before fine rollups). */
async function exactCounters(organizationId: string, range: TimeRange, leadsOnly: boolean): Promise<Contribution> {
  const [facts, events] = await Promise.all([
    leadFacts(organizationId, range),
    leadsOnly ? Promise.resolve([]) : windowEvents(organizationId, range),
  ]);
  const counters: Counters = {};
  for (const fact of facts) mergeCounters(counters, leadsOnly ? { [counter.leads]: 1 } : factCounters(fact));
  const seconds = await Promise.all(
    events
      .map((event) => effectOf(event))
      .map((effect) => (effect.completedCallId ? callSeconds(organizationId, effect.completedCallId) : 0)),
  );
  events.forEach((event, index) => {
    mergeCounters(counters, effectOf(event).counters);
    if (seconds[index]) mergeCounters(counters, { [counter.callSeconds]: seconds[index]! });
  });
  return splitHistogram(counters);
}

async function windowEvents(organizationId: string, range: TimeRange) {
  const counted = new Set<string>(countedEventTypes);
  const events: EventRecord[] = [];
  const pages = Events.createdWithin(
    organizationId,
    range.start,
    range.end - 1,
    (item) => counted.has(String(item.eventType)) || item.eventCategory === "Automation",
  );
  for await (const page of pages) events.push(...page);
  return events;
}

/**
 * Rollup items and their histogram items (sorted right after each) of the pieces
 * of one level, one ranged query per run of consecutive pieces; keyed by the
 * rollup sort key. `countsOnly` projects just the lead count. Minute and second
 * items carry their few histogram counters as plain numbers (no histogram item).
 */
async function rollups(
  organizationId: string,
  pieces: Piece[],
  level: Level,
  countsOnly: boolean,
): Promise<Map<string, Contribution>> {
  const runs: Extract<Piece, { bucket: string }>[][] = [];
  for (const piece of pieces) {
    if (piece.kind === "exact") continue;
    const run = runs.at(-1);
    if (run && run.at(-1)!.end === piece.start) run.push(piece);
    else runs.push([piece]);
  }
  const sortKey = (bucket: string) => AnalyticsRollupEntity.key({ organizationId, level, bucket }).sk;
  // The last bucket's histogram item sorts right after its rollup item: the range ends there for levels that have one.
  const lastOf = (bucket: string) =>
    isFine(level) ? sortKey(bucket) : AnalyticsHistogramEntity.key({ organizationId, level, bucket }).sk;
  const results = await Promise.all(
    runs.map((run) =>
      queryAll(
        AnalyticsRollupEntity.query(
          "collection",
          { organizationId, level },
          {
            range: { between: [sortKey(run[0]!.bucket), lastOf(run.at(-1)!.bucket)] },
            ...(countsOnly ? { attributes: ["sk", "leads"] } : {}),
          },
        ),
      ),
    ),
  );
  const found = new Map<string, Contribution>();
  for (const item of results.flat()) {
    const sk = String(item.sk);
    if (sk.endsWith("#HIST")) {
      if (countsOnly) continue;
      const rollupSk = sk.slice(0, -"#HIST".length);
      found.set(rollupSk, { counters: found.get(rollupSk)?.counters ?? {}, histogram: parseHistogram(item) });
    } else if (isFine(level)) found.set(sk, splitHistogram(countersOf(item)));
    else found.set(sk, { counters: countersOf(item), histogram: found.get(sk)?.histogram });
  }
  return found;
}

/**
 * The figures of a range, in total and per trend bucket. `leadsOnly` reads just the lead count (previous-period
 * comparisons); `bucketHistograms` keeps a histogram per bucket too (per-bucket medians); `fineFrom` is where the
 * organization's minute and second rollups start (core/analytics/minutes; read here when not given).
 */
export async function rangeFigures(
  organizationId: string,
  range: TimeRange,
  granularity: Granularity,
  options: { leadsOnly?: boolean; bucketHistograms?: boolean; fineFrom?: Promise<FineRollupsFrom> } = {},
): Promise<RangeFigures> {
  const leadsOnly = options.leadsOnly ?? false;
  const levelOf = { week: "W", day: "D", hour: "H", minute: "M", second: "S" } as const;
  // Whole weeks, days and hours do not depend on where fine rollups start: they are read without waiting for it.
  const coarse = piecesOf(range, granularity);
  let pieces = coarse;
  const [coarseMaps, [fineMaps, exact]] = await Promise.all([
    Promise.all(
      (["week", "day", "hour"] as const).map((kind) =>
        rollups(
          organizationId,
          coarse.filter((piece) => piece.kind === kind),
          levelOf[kind],
          leadsOnly,
        ),
      ),
    ),
    (options.fineFrom ?? storedFineRollupsFrom(organizationId)).then((fineFrom) => {
      pieces = piecesOf(range, granularity, fineFrom);
      return Promise.all([
        Promise.all(
          (["minute", "second"] as const).map((kind) =>
            rollups(
              organizationId,
              pieces.filter((piece) => piece.kind === kind),
              levelOf[kind],
              leadsOnly,
            ),
          ),
        ),
        Promise.all(
          pieces.map((piece) => (piece.kind === "exact" ? exactCounters(organizationId, piece, leadsOnly) : undefined)),
        ),
      ]);
    }),
  ]);
  const stored = new Map([...coarseMaps, ...fineMaps].flatMap((map) => [...map]));
  const buckets: RangeFigures["buckets"] = bucketsOf(range, granularity).map((bucket) =>
    options.bucketHistograms ? { bucket, counters: {}, histogram: emptyHistogram() } : { bucket, counters: {} },
  );
  const totals: Counters = {};
  const histogram = emptyHistogram();
  let index = 0;
  pieces.forEach((piece, position) => {
    while (index < buckets.length - 1 && buckets[index]!.bucket.end <= piece.start) index++;
    const contribution =
      piece.kind === "exact"
        ? exact[position]!
        : stored.get(
            AnalyticsRollupEntity.key({ organizationId, level: levelOf[piece.kind], bucket: piece.bucket }).sk,
          );
    if (!contribution) return;
    const bucket = buckets[index]!;
    mergeCounters(bucket.counters, contribution.counters);
    mergeCounters(totals, contribution.counters);
    if (contribution.histogram) {
      mergeHistograms(histogram, contribution.histogram);
      if (bucket.histogram) mergeHistograms(bucket.histogram, contribution.histogram);
    }
  });
  return { totals, histogram, buckets };
}

/** Creation time of a lead (its id is a ULID of it). */
export const leadCreatedAt = (leadId: string) => decodeTime(leadId);

/** The exact median of a histogram (minutes → count); null when it is empty. */
export function medianOf(counts: Record<string, number> | undefined): number | null {
  const entries = Object.entries(counts ?? {})
    .filter(([minutes, count]) => count > 0 && /^\d+$/.test(minutes))
    .map(([minutes, count]) => [Number(minutes), count] as const)
    .sort((a, b) => a[0] - b[0]);
  const total = entries.reduce((sum, [, count]) => sum + count, 0);
  if (total === 0) return null;
  const valueAt = (rank: number) => {
    let seen = 0;
    for (const [value, count] of entries) {
      seen += count;
      if (seen > rank) return value;
    }
    return entries.at(-1)![0];
  };
  return total % 2 === 1 ? valueAt((total - 1) / 2) : (valueAt(total / 2 - 1) + valueAt(total / 2)) / 2;
}
