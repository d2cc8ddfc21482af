import { defineEntity } from "#core/db/entity";
import { operationsKeys } from "#core/db/keys/operations";

type StoredScheduleRun = { schedule: string } & Record<string, unknown>;

const runs = operationsKeys.scheduleRunPrefix();

/**
 * The ScheduleRun entity (docs/data-model.md): the last run of each operator schedule (a sweep), one item per
 * schedule overwritten by its next run, all in one operator partition (not tenant data), read whole by `admin status`.
 */
export const ScheduleRunEntity = defineEntity({
  name: "ScheduleRun",
  attributes: [],
  key: ({ schedule }: { schedule: string }) => operationsKeys.scheduleRun(schedule),
  identity: ({ schedule }: StoredScheduleRun) => ({ schedule }),
  collection: {
    name: "bySchedule",
    pk: () => runs.pk,
    sk: (run: StoredScheduleRun) => `${runs.skPrefix}${run.schedule ?? ""}`,
  },
  indexes: {},
});
