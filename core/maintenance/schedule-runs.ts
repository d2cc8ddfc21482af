import { ScheduleRunEntity } from "#core/db/entities/maintenance";
import { table } from "#core/db/items";
import { logger, withCorrelationId } from "#core/observability/index";
import { countMetric } from "#core/observability/metrics";
import { newId, nowIso } from "#core/shared/ids";

/** The last run of a schedule, as `admin status` shows it. */
export interface ScheduleRun {
  schedule: string;
  startedAt: string;
  finishedAt: string;
  outcome: "Succeeded" | "Failed";
  /** What the run reported (counts of recovered work), when it succeeded. */
  result?: unknown;
  error?: string;
}

/**
 * Wraps a schedule's handler so each run leaves one item (a single put,
 * overwritten by the next run): an operator sees when every sweep last ran and
 * how it ended without reading logs. A failed run is recorded, then rethrown so
 * Lambda counts the error (the schedule's alarm).
 */
export function scheduledJob<TEvent, TResult>(schedule: string, run: (event: TEvent) => Promise<TResult>) {
  return (event: TEvent): Promise<TResult> =>
    // Each run is its own journey: what it republishes or ends carries the run's id.
    withCorrelationId(`${schedule}-${newId()}`, async () => {
      const startedAt = nowIso();
      const started = Date.now();
      try {
        const result = await run(event);
        await record({
          schedule,
          startedAt,
          finishedAt: nowIso(),
          outcome: "Succeeded",
          ...(result === undefined ? {} : { result }),
        });
        logger.info("schedule run", { schedule, outcome: "Succeeded", latencyMs: Date.now() - started, result });
        // Work a sweep recovered (republished, expired, released …), by schedule and kind.
        for (const [kind, count] of Object.entries(result ?? {})) {
          if (typeof count === "number" && count > 0) countMetric("SweepRecoveries", { schedule, kind }, count);
        }
        return result;
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        await record({ schedule, startedAt, finishedAt: nowIso(), outcome: "Failed", error: message }).catch(
          () => undefined,
        );
        logger.error("schedule run failed", {
          schedule,
          outcome: "Failed",
          latencyMs: Date.now() - started,
          error: error as Error,
        });
        throw error;
      }
    });
}

async function record(run: ScheduleRun): Promise<void> {
  await table.put(ScheduleRunEntity.put({ ...run }));
}

/** The last recorded run of every schedule that ran at least once. */
export async function lastScheduleRuns(): Promise<ScheduleRun[]> {
  const { Items } = await table.query(
    ScheduleRunEntity.queryPartition(
      "collection",
      {},
      { range: { beginsWith: ScheduleRunEntity.sortKey("collection", {}) } },
    ),
  );
  return (Items ?? []).map(({ schedule, startedAt, finishedAt, outcome, result, error }) => ({
    schedule,
    startedAt,
    finishedAt,
    outcome,
    ...(result === undefined ? {} : { result }),
    ...(error === undefined ? {} : { error }),
  })) as ScheduleRun[];
}
