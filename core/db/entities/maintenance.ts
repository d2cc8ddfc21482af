import { defineEntity } from "#core/db/entity";
import type { Key } from "#core/db/keys/shared";

/** Keys of the items core/maintenance owns (docs/data-model.md). */
export const maintenanceKeys = {
  /** The last run of one schedule (for `admin status`). Not tenant data: one item per schedule of the stage. */
  scheduleRun: (scheduleName: string): Key => ({ pk: "OPERATIONS", sk: `SCHEDULERUN#${scheduleName}` }),
  scheduleRunPrefix: () => ({ pk: "OPERATIONS", skPrefix: "SCHEDULERUN#" }),
};

type StoredScheduleRun = { schedule: string } & Record<string, unknown>;

const runs = maintenanceKeys.scheduleRunPrefix();

/**
 * The ScheduleRun entity (docs/data-model.md): the last run of each operator schedule (a sweep), one item per
 * schedule overwritten by its next run, all in one operator partition (not tenant data), read whole by `admin status`.
 */
export const ScheduleRunEntity = defineEntity({
  name: "ScheduleRun",
  attributes: [],
  key: ({ schedule }: { schedule: string }) => maintenanceKeys.scheduleRun(schedule),
  identity: ({ schedule }: StoredScheduleRun) => ({ schedule }),
  collection: {
    name: "bySchedule",
    pk: () => runs.pk,
    sk: (run: StoredScheduleRun) => `${runs.skPrefix}${run.schedule ?? ""}`,
  },
  indexes: {},
});
