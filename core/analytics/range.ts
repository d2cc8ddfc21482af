import * as v from "valibot";
import { ValidationError } from "#core/errors";

/**
 * The reporting window of `GET /analytics/my` and its export, and how it is cut
 * into trend buckets. Pure functions: unit-tested without storage.
 */

const secondMs = 1000;
const minuteMs = 60 * secondMs;
const hourMs = 60 * minuteMs;
const dayMs = 24 * hourMs;
export const maxDays = 365;
const maxSpanMs = maxDays * dayMs;

const isoDateTime = v.pipe(
  v.string(),
  v.isoTimestamp("Must be an ISO 8601 date-time, e.g. 2026-01-01T00:00:00Z."),
  v.check(isRealDate, "Must be a real date-time (no February 30th)."),
);

/** Date.parse rolls 2026-02-30 over to March 2nd; a calendar date must exist as written. */
function isRealDate(value: string): boolean {
  const [, year, month, day] = /^(\d{4})-(\d{2})-(\d{2})/.exec(value) ?? [];
  const date = new Date(Date.UTC(Number(year), Number(month) - 1, Number(day)));
  return (
    !Number.isNaN(Date.parse(value)) && date.getUTCMonth() === Number(month) - 1 && date.getUTCDate() === Number(day)
  );
}

/** API Gateway hands query parameters over as strings, so `days` is parsed here. */
const daysParameter = v.pipe(
  v.string(),
  // 1-365 as a pattern, so the contract states the range of this string parameter.
  v.regex(/^(?:[1-9]|[1-9]\d|[12]\d\d|3[0-5]\d|36[0-5])$/, `days must be a whole number from 1 to ${maxDays}.`),
  v.transform(Number),
);

/**
 * Query of endpoints 3 and 4: `startAt` (inclusive), `endAt` (exclusive, default
 * now), `days` (1-365, default 30, counted back from `endAt`, only without `startAt`).
 * Windows are resolved to whole seconds (see resolveRange).
 */
export const AnalyticsQuerySchema = v.object({
  startAt: v.optional(isoDateTime),
  endAt: v.optional(isoDateTime),
  days: v.optional(daysParameter),
});
export type AnalyticsQuery = v.InferOutput<typeof AnalyticsQuerySchema>;

export type Granularity = "Hour" | "Day" | "Week";

export interface TimeRange {
  /** Epoch ms, inclusive. */
  start: number;
  /** Epoch ms, exclusive. */
  end: number;
}

export interface Bucket extends TimeRange {
  label: string;
}

/**
 * The window a query asks for, resolved to whole seconds: the sub-second part of
 * `startAt`, `endAt` and now is dropped (the answer's `range` shows the resolved
 * window). Second rollups then answer every partial minute at an edge, so a report
 * never reads event records however busy the organization (docs/analytics.md).
 * `startAt` with `days` is ambiguous, a start at or after the end is empty, and a
 * window longer than 365 days is refused: each is a 400 naming the offending parameter.
 */
export function resolveRange(query: AnalyticsQuery, now: number = Date.now()): TimeRange {
  if (query.startAt !== undefined && query.days !== undefined) {
    throw new ValidationError("Send either startAt or days, not both.", [
      { in: "query", field: "days", detail: "days counts back from endAt and cannot be combined with startAt." },
    ]);
  }
  const end = floorSecond(query.endAt !== undefined ? Date.parse(query.endAt) : now);
  const start = query.startAt !== undefined ? floorSecond(Date.parse(query.startAt)) : end - (query.days ?? 30) * dayMs;
  if (start >= end) {
    throw new ValidationError("startAt must be before endAt.", [
      { in: "query", field: "startAt", detail: "startAt must be earlier than endAt." },
    ]);
  }
  if (end - start > maxSpanMs) {
    throw new ValidationError(`The range may cover at most ${maxDays} days.`, [
      { in: "query", field: "startAt", detail: `startAt must be at most ${maxDays} days before endAt.` },
    ]);
  }
  return { start, end };
}

/** The period of the same length just before the range (for comparisons). */
export function previousRange(range: TimeRange): TimeRange {
  return { start: range.start - (range.end - range.start), end: range.start };
}

/** Hours for ranges of 2 days or less, weeks beyond 90 days, days in between. */
export function granularityOf(range: TimeRange): Granularity {
  const span = range.end - range.start;
  if (span <= 2 * dayMs) return "Hour";
  if (span > 90 * dayMs) return "Week";
  return "Day";
}

export const floorSecond = (t: number) => Math.floor(t / secondMs) * secondMs;
export const floorMinute = (t: number) => Math.floor(t / minuteMs) * minuteMs;
export const floorHour = (t: number) => Math.floor(t / hourMs) * hourMs;
export const floorDay = (t: number) => Math.floor(t / dayMs) * dayMs;
/** Monday 00:00 UTC of the ISO week of `t` (1970-01-01 was a Thursday). */
export const floorWeek = (t: number) => floorDay(t) - ((new Date(floorDay(t)).getUTCDay() + 6) % 7) * dayMs;

const stepOf: Record<Granularity, { floor: (t: number) => number; next: (t: number) => number }> = {
  Hour: { floor: floorHour, next: (t) => t + hourMs },
  Day: { floor: floorDay, next: (t) => t + dayMs },
  Week: { floor: floorWeek, next: (t) => t + 7 * dayMs },
};

/**
 * Trend buckets: UTC calendar hours, days or ISO weeks (Monday first), the first
 * and last clipped to the range, so the buckets tile the range exactly.
 */
export function bucketsOf(range: TimeRange, granularity: Granularity = granularityOf(range)): Bucket[] {
  const { floor, next } = stepOf[granularity];
  const buckets: Bucket[] = [];
  for (let at = floor(range.start); at < range.end; at = next(at)) {
    buckets.push({
      start: Math.max(at, range.start),
      end: Math.min(next(at), range.end),
      label: labelOf(at, granularity),
    });
  }
  return buckets;
}

function labelOf(at: number, granularity: Granularity): string {
  const iso = new Date(at).toISOString();
  if (granularity === "Hour") return `${iso.slice(0, 10)} ${iso.slice(11, 13)}:00`;
  if (granularity === "Day") return iso.slice(0, 10);
  return `Week of ${iso.slice(0, 10)}`;
}

/** A piece of a range and where its figures come from. */
export type Piece =
  | { kind: "week" | "day" | "hour" | "minute" | "second"; start: number; end: number; bucket: string }
  | { kind: "exact"; start: number; end: number };

/**
 * Rollup bucket names, UTC: `2026-01-05T14:07:33` (second), `2026-01-05T14:07` (minute), `2026-01-05T14` (hour), `2026-01-05` (day), the Monday
 * `2026-01-05` (ISO week).
 */
export const secondBucket = (t: number) => new Date(t).toISOString().slice(0, 19);
export const minuteBucket = (t: number) => new Date(t).toISOString().slice(0, 16);
export const dayBucket = (t: number) => new Date(t).toISOString().slice(0, 10);
export const hourBucket = (t: number) => new Date(t).toISOString().slice(0, 13);
export const weekBucket = (t: number) => dayBucket(floorWeek(t));

/** From when minute and second rollups are complete (epoch ms; Infinity: not at all): core/analytics/minutes. */
export interface FineRollupsFrom {
  minutes: number;
  seconds: number;
}

const noFineRollups: FineRollupsFrom = { minutes: Infinity, seconds: Infinity };

/**
 * Cuts a range into the fewest rollup reads: whole ISO weeks from week rollups
 * (weekly trends only), whole UTC days from day rollups (not for hourly trends),
 * whole hours from hour rollups, and the sub-hour edges (at most two, each under
 * an hour): whole minutes from minute rollups, the partial minutes (at most two)
 * from second rollups, each where it is kept (`from`), and whatever is left (a
 * sub-second part, times before `from`) exactly from the records themselves. A
 * 365-day range is about 51 weeks, 12 days, 46 hours, at most 118 minutes and
 * 118 seconds; where fine rollups are kept and the range is in whole seconds (as
 * resolveRange makes it), it reads no event record at all.
 */
export function piecesOf(
  range: TimeRange,
  granularity: Granularity = "Day",
  from: FineRollupsFrom = noFineRollups,
): Piece[] {
  const pieces: Piece[] = [];
  let at = range.start;
  const firstHour = Math.min(range.end, floorHour(at) === at ? at : floorHour(at) + hourMs);
  if (firstHour > at) pieces.push(...edgePieces(at, firstHour, from));
  at = firstHour;
  const lastHour = floorHour(range.end);
  while (at < lastHour) {
    if (granularity === "Week" && floorWeek(at) === at && at + 7 * dayMs <= lastHour) {
      pieces.push({ kind: "week", start: at, end: at + 7 * dayMs, bucket: weekBucket(at) });
      at += 7 * dayMs;
    } else if (granularity !== "Hour" && floorDay(at) === at && at + dayMs <= lastHour) {
      pieces.push({ kind: "day", start: at, end: at + dayMs, bucket: dayBucket(at) });
      at += dayMs;
    } else {
      pieces.push({ kind: "hour", start: at, end: at + hourMs, bucket: hourBucket(at) });
      at += hourMs;
    }
  }
  if (range.end > at) pieces.push(...edgePieces(at, range.end, from));
  return pieces;
}

/** The finer units of a sub-hour edge, coarsest first: its kind, length, bucket name and from when it is kept. */
const edgeUnits = (from: FineRollupsFrom) =>
  [
    { kind: "minute", ms: minuteMs, bucketOf: minuteBucket, from: from.minutes },
    { kind: "second", ms: secondMs, bucketOf: secondBucket, from: from.seconds },
  ] as const;

/** A sub-hour edge: whole minutes from minute rollups, whole seconds of what is left from second rollups, the rest exactly. */
function edgePieces(start: number, end: number, from: FineRollupsFrom): Piece[] {
  return cut(start, end, edgeUnits(from));
}

function cut(start: number, end: number, units: readonly ReturnType<typeof edgeUnits>[number][]): Piece[] {
  if (start >= end) return [];
  const [unit, ...finer] = units;
  if (!unit || unit.from >= end) return unit ? cut(start, end, finer) : [{ kind: "exact", start, end }];
  const from = Math.max(start, unit.from);
  const first = Math.ceil(from / unit.ms) * unit.ms;
  const last = Math.floor(end / unit.ms) * unit.ms;
  if (first >= last) return cut(start, end, finer);
  const whole: Piece[] = [];
  for (let at = first; at < last; at += unit.ms)
    whole.push({ kind: unit.kind, start: at, end: at + unit.ms, bucket: unit.bucketOf(at) });
  return [...cut(start, first, finer), ...whole, ...cut(last, end, finer)];
}
