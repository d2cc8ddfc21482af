/**
 * Wall-clock notations of automation settings: five-field cron expressions (Schedule trigger) and `HH:mm` times
 * (TimeOfDay condition, Wait until). Both are read in the organization's time zone by the run engine.
 */

/** The values a cron expression allows, one sorted list per field. Day of week: 0 = Sunday … 6 = Saturday. */
export interface CronFields {
  minutes: number[];
  hours: number[];
  daysOfMonth: number[];
  months: number[];
  daysOfWeek: number[];
  /** Whether day-of-month and day-of-week were both restricted (then either may match, as in classic cron). */
  dayFieldsBothRestricted: boolean;
}

export type ParsedCron = { ok: true; fields: CronFields } | { ok: false; problem: string };

const monthNames = ["JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"];
const dayNames = ["SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT"];

const fieldSpecs = [
  { name: "minute", min: 0, max: 59, names: undefined },
  { name: "hour", min: 0, max: 23, names: undefined },
  { name: "day of month", min: 1, max: 31, names: undefined },
  { name: "month", min: 1, max: 12, names: monthNames },
  { name: "day of week", min: 0, max: 7, names: dayNames },
] as const;

type FieldSpec = (typeof fieldSpecs)[number];

/** Parses `minute hour day-of-month month day-of-week` (`*`, lists, ranges, `/step`, JAN-DEC, SUN-SAT). */
export function parseCron(expression: string): ParsedCron {
  const parts = expression.trim().split(/\s+/);
  if (parts.length !== 5) {
    return {
      ok: false,
      problem: `A cron expression has 5 fields (minute hour day-of-month month day-of-week); "${expression}" has ${parts.length}.`,
    };
  }
  const values: number[][] = [];
  for (const [index, spec] of fieldSpecs.entries()) {
    const parsed = parseCronField(parts[index] ?? "", spec);
    if (typeof parsed === "string") return { ok: false, problem: parsed };
    values.push(parsed);
  }
  const [minutes = [], hours = [], daysOfMonth = [], months = [], daysOfWeekRaw = []] = values;
  const daysOfWeek = [...new Set(daysOfWeekRaw.map((day) => day % 7))].sort((a, b) => a - b);
  return {
    ok: true,
    fields: {
      minutes,
      hours,
      daysOfMonth,
      months,
      daysOfWeek,
      dayFieldsBothRestricted: parts[2] !== "*" && parts[4] !== "*",
    },
  };
}

function parseCronField(text: string, spec: FieldSpec): number[] | string {
  const found = new Set<number>();
  for (const item of text.split(",")) {
    const match = /^(\*|[A-Za-z0-9]+(?:-[A-Za-z0-9]+)?)(?:\/(\d+))?$/.exec(item);
    if (!match) return `The cron ${spec.name} field "${text}" is not valid.`;
    const [, range = "", stepText] = match;
    const step = stepText === undefined ? 1 : Number(stepText);
    if (step < 1) return `The cron ${spec.name} field "${text}" has a step below 1.`;
    let low: number = spec.min;
    let high: number = spec.max;
    if (range !== "*") {
      const [from = "", to] = range.split("-");
      const start = cronValue(from, spec);
      const end = to === undefined ? (stepText === undefined ? start : spec.max) : cronValue(to, spec);
      if (start === undefined || end === undefined) {
        return `The cron ${spec.name} field "${text}" must use values ${spec.min}-${spec.max}${spec.names ? ` or ${spec.names[0]}-${spec.names.at(-1)}` : ""}.`;
      }
      if (start > end) return `The cron ${spec.name} range "${range}" runs backwards.`;
      [low, high] = [start, end];
    }
    for (let value = low; value <= high; value += step) found.add(value);
  }
  return [...found].sort((a, b) => a - b);
}

function cronValue(token: string, spec: FieldSpec): number | undefined {
  const named = spec.names?.indexOf(token.toUpperCase() as never) ?? -1;
  if (named !== -1) return spec.name === "month" ? named + 1 : named;
  if (!/^\d+$/.test(token)) return undefined;
  const value = Number(token);
  return value >= spec.min && value <= spec.max ? value : undefined;
}

export const clockPattern = /^([01]\d|2[0-3]):([0-5]\d)$/;

/** Minutes after midnight of an `HH:mm` time (24-hour clock), or undefined when malformed. */
export function minutesOfDay(time: string): number | undefined {
  const match = clockPattern.exec(time);
  return match ? Number(match[1]) * 60 + Number(match[2]) : undefined;
}

/** Whether `minute` (after midnight) falls in [start, end); a window whose end is before its start wraps midnight. */
export function isWithinWindow(minute: number, start: number, end: number): boolean {
  return start <= end ? minute >= start && minute < end : minute >= start || minute < end;
}
