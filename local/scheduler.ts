import { Cron } from "croner";
import type { ScheduleDefinition } from "#stacks/definitions";
import { functionName, lambdaContext, loadFunction, withTimeout } from "#local/handlers";

/**
 * Translates an EventBridge cron (`min hour day-of-month month day-of-week year`,
 * optionally wrapped in `cron(...)`) to a croner pattern. The fields keep their
 * meaning once a seconds field is added, because croner's Quartz mode
 * (`alternativeWeekdays`) numbers weekdays 1 = Sunday like EventBridge does.
 */
export function toCronerPattern(expression: string): string {
  const body = expression
    .trim()
    .replace(/^cron\((.*)\)$/s, "$1")
    .trim();
  const fields = body.split(/\s+/);
  if (fields.length !== 6)
    throw new Error(`EventBridge cron needs 6 fields (min hour dom month dow year): "${expression}"`);
  if (fields[2] !== "?" && fields[4] !== "?")
    throw new Error(`EventBridge cron needs "?" in day-of-month or day-of-week: "${expression}"`);
  return `0 ${fields.join(" ")}`;
}

/** croner settings that give EventBridge semantics: UTC, 1 = Sunday, `0/15` steps, a year field. */
export const eventBridgeCronOptions = {
  timezone: "UTC",
  alternativeWeekdays: true,
  sloppyRanges: true,
  mode: "7-part",
} as const;

/** Schedules a croner job for an EventBridge cron; a run still going is not overlapped. */
export function eventBridgeCron(expression: string, run: () => Promise<void> | void): Cron {
  return new Cron(toCronerPattern(expression), { ...eventBridgeCronOptions, protect: true, unref: true }, run);
}

export interface Scheduler {
  stop(): Promise<void>;
}

/** Fires each schedule's handler on its cron until stopped; a run still going when stopped is awaited. */
export function startScheduler(
  schedules: readonly ScheduleDefinition[],
  log: (line: string) => void = () => undefined,
): Scheduler {
  const running = new Set<Promise<void>>();
  const jobs = schedules.map((schedule) =>
    eventBridgeCron(schedule.cron, () => {
      const run = fire(schedule, log);
      running.add(run);
      return run.finally(() => running.delete(run));
    }),
  );
  return {
    async stop() {
      for (const job of jobs) job.stop();
      await Promise.allSettled([...running]);
    },
  };
}

/**
 * What a schedule's function receives: SST's Cron target sends the constant input `{}`, not EventBridge's scheduled
 * event (tests/deploy asserts the deployed targets' input), so a handler cannot rely on the event's time.
 */
export const scheduleInput = {};

async function fire(schedule: ScheduleDefinition, log: (line: string) => void): Promise<void> {
  const name = functionName(schedule.handler);
  const timeoutMs = 60_000;
  try {
    const handler = await loadFunction(schedule);
    await withTimeout(Promise.resolve(handler({ ...scheduleInput }, lambdaContext(name, timeoutMs))), timeoutMs, name);
  } catch (error) {
    log(`schedule ${schedule.name} failed: ${error instanceof Error ? error.stack : String(error)}`);
  }
}
