import { parseCron } from "#core/automations/definition/time";
import { instantOfWallTime, wallTimeAt } from "#core/messaging/quiet-hours";

/** The next firing of a Schedule trigger strictly after `after`, in the organization's time zone. */
export function nextFireAt(
  settings: { cron?: string; intervalMinutes?: number },
  timeZone: string,
  after: number,
): number {
  if (settings.intervalMinutes !== undefined)
    return Math.floor(after / 60_000) * 60_000 + settings.intervalMinutes * 60_000;
  const parsed = parseCron(settings.cron ?? "");
  if (!parsed.ok) throw new Error(parsed.problem);
  const { minutes, hours, daysOfMonth, months, daysOfWeek, dayFieldsBothRestricted } = parsed.fields;
  const start = wallTimeAt(after, timeZone);
  for (let offset = 0; offset <= 366 * 5; offset++) {
    const date = new Date(Date.UTC(start.year, start.month - 1, start.day + offset));
    const [month, day, weekday] = [date.getUTCMonth() + 1, date.getUTCDate(), date.getUTCDay()];
    if (!months.includes(month)) continue;
    const domMatch = daysOfMonth.includes(day);
    const dowMatch = daysOfWeek.includes(weekday);
    if (!(dayFieldsBothRestricted ? domMatch || dowMatch : domMatch && dowMatch)) continue;
    for (const hour of hours) {
      for (const minute of minutes) {
        const at = instantOfWallTime({ year: date.getUTCFullYear(), month, day, hour, minute, second: 0 }, timeZone);
        if (at > after) return at;
      }
    }
  }
  throw new Error(`The cron expression "${settings.cron}" never fires.`);
}
