import { defineEntity } from "#core/db/entity";
import { maintenanceKeys } from "#core/db/keys/maintenance";

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
