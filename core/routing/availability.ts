import type { User } from "#core/users/schemas";

const endOfDay = "23:59";

/**
 * Whether `now` falls within one of the user's working-hour spans, read in their time zone (the organization's when
 * they have none). A user who keeps no working hours is available at any time. A span ends before its `end` minute,
 * except one ending at 23:59, the latest a clock can say (HH:MM, no 24:00): it runs to midnight, so "00:00–23:59"
 * is the whole day and not a day with its last minute off.
 */
export function isWorkingTime(workingHours: User["workingHours"], timeZone: string, now: Date): boolean {
  if (!workingHours.length) return true;
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat("en-US", {
      timeZone,
      weekday: "short",
      hour: "2-digit",
      minute: "2-digit",
      hourCycle: "h23",
    })
      .formatToParts(now)
      .map((part) => [part.type, part.value]),
  );
  const clock = `${parts.hour}:${parts.minute}`;
  return workingHours.some(
    (span) => span.day === parts.weekday && span.start <= clock && (clock < span.end || span.end === endOfDay),
  );
}

/** The calendar day (YYYY-MM-DD) and clock hour (YYYY-MM-DDTHH) of `now` in a time zone: where caps restart. */
export function capPeriods(timeZone: string, now: Date): { day: string; hour: string } {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat("en-CA", {
      timeZone,
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      hourCycle: "h23",
    })
      .formatToParts(now)
      .map((part) => [part.type, part.value]),
  );
  const day = `${parts.year}-${parts.month}-${parts.day}`;
  return { day, hour: `${day}T${parts.hour}` };
}
