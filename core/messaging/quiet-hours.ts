import * as v from "valibot";

/**
 * Quiet hours: a send is allowed only inside a local-time window of the
 * recipient (default 08:00–21:00, start inclusive, end exclusive). Outside it
 * the send is deferred to the next window start, computed with the platform's
 * IANA zone data (Intl), so DST changes are honoured without a library.
 */

export type QuietHoursWindow = { start: string; end: string };

export const DEFAULT_QUIET_HOURS_WINDOW: QuietHoursWindow = { start: "08:00", end: "21:00" };

const clockTime = v.pipe(v.string(), v.regex(/^(?:[01]\d|2[0-3]):[0-5]\d$/, "Expected a local time HH:MM"));

/** Valibot schema of a window setting (organization settings, overrides). */
export const quietHoursWindowSchema = v.object({ start: clockTime, end: clockTime });

export type QuietHoursDecision =
  | { allowed: true; localTime: string; timeZone: string }
  | {
      allowed: false;
      localTime: string;
      timeZone: string;
      /** First allowed instant, ISO 8601 UTC with milliseconds. */
      nextAllowedAt: string;
      reason: "QuietHours";
      /** Human-readable explanation stored as the message's `scheduledReason`. */
      scheduledReason: string;
    };

type WallTime = { year: number; month: number; day: number; hour: number; minute: number; second: number };

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(timeZone: string): Intl.DateTimeFormat {
  let existing = formatters.get(timeZone);
  if (existing === undefined) {
    existing = new Intl.DateTimeFormat("en-US", {
      timeZone,
      hourCycle: "h23",
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      second: "2-digit",
    });
    formatters.set(timeZone, existing);
  }
  return existing;
}

/** True for zone names the runtime's IANA data knows ("America/Chicago"). */
export function isValidTimeZone(timeZone: string): boolean {
  try {
    formatter(timeZone);
    return true;
  } catch {
    return false;
  }
}

/** The wall-clock time in `timeZone` at an instant. */
export function wallTimeAt(instant: number, timeZone: string): WallTime {
  const parts: Record<string, number> = {};
  for (const part of formatter(timeZone).formatToParts(new Date(instant))) {
    if (part.type !== "literal") parts[part.type] = Number(part.value);
  }
  const get = (name: string) => parts[name] ?? 0;
  return {
    year: get("year"),
    month: get("month"),
    day: get("day"),
    hour: get("hour"),
    minute: get("minute"),
    second: get("second"),
  };
}

function asUtc(wall: WallTime): number {
  return Date.UTC(wall.year, wall.month - 1, wall.day, wall.hour, wall.minute, wall.second);
}

function offsetAt(instant: number, timeZone: string): number {
  const floored = Math.floor(instant / 1000) * 1000;
  return asUtc(wallTimeAt(floored, timeZone)) - floored;
}

/**
 * The instant a wall-clock time happens in a zone. Like Temporal's
 * "compatible" rule: a time repeated when clocks go back resolves to its first
 * occurrence; a time skipped when clocks go forward moves later by the gap
 * (02:30 on a spring-forward night in New York → 03:30 EDT).
 */
export function instantOfWallTime(wall: WallTime, timeZone: string): number {
  const local = asUtc(wall);
  const day = 24 * 60 * 60 * 1000;
  const before = offsetAt(local - day, timeZone);
  const after = offsetAt(local + day, timeZone);
  const matches = [...new Set([before, after])]
    .map((offset) => local - offset)
    .filter((instant) => asUtc(wallTimeAt(instant, timeZone)) === local)
    .sort((x, y) => x - y);
  return matches[0] ?? local - before;
}

function minutesOf(clock: string): number {
  const [hours = 0, minutes = 0] = clock.split(":").map(Number);
  return hours * 60 + minutes;
}

const pad = (value: number) => String(value).padStart(2, "0");

/** Decides whether a send at `at` respects the recipient's quiet hours, and if not, when it may go. */
export function checkQuietHours(input: {
  at: Date | string;
  timeZone: string;
  window?: QuietHoursWindow;
}): QuietHoursDecision {
  const window = v.parse(quietHoursWindowSchema, input.window ?? DEFAULT_QUIET_HOURS_WINDOW);
  const { timeZone } = input;
  if (!isValidTimeZone(timeZone)) throw new RangeError(`Unknown time zone: ${timeZone}`);
  const at = new Date(input.at).getTime();
  if (Number.isNaN(at)) throw new RangeError(`Invalid send time: ${String(input.at)}`);

  const wall = wallTimeAt(at, timeZone);
  const now = wall.hour * 60 + wall.minute;
  const start = minutesOf(window.start);
  const end = minutesOf(window.end);
  const localTime = `${pad(wall.hour)}:${pad(wall.minute)}`;
  const inside = start === end || (start < end ? now >= start && now < end : now >= start || now < end);
  if (inside) return { allowed: true, localTime, timeZone };

  // Outside the window: the next start is today unless today's start has passed.
  const dayOffset = now >= start ? 1 : 0;
  const date = new Date(Date.UTC(wall.year, wall.month - 1, wall.day + dayOffset));
  const nextAllowedAt = instantOfWallTime(
    {
      year: date.getUTCFullYear(),
      month: date.getUTCMonth() + 1,
      day: date.getUTCDate(),
      hour: Math.floor(start / 60),
      minute: start % 60,
      second: 0,
    },
    timeZone,
  );
  return {
    allowed: false,
    localTime,
    timeZone,
    nextAllowedAt: new Date(nextAllowedAt).toISOString(),
    reason: "QuietHours",
    scheduledReason:
      `Quiet hours: ${localTime} in ${timeZone} is outside the sending window ` +
      `${window.start}-${window.end}; scheduled for ${window.start} local time.`,
  };
}
