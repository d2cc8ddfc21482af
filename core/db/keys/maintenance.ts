import { type Key } from "#core/db/keys/shared";

/** Keys of the items core/maintenance owns (docs/data-model.md). */
export const maintenanceKeys = {
  /** The last run of one schedule (for `admin status`). Not tenant data: one item per schedule of the stage. */
  scheduleRun: (scheduleName: string): Key => ({ pk: "OPERATIONS", sk: `SCHEDULERUN#${scheduleName}` }),
  scheduleRunPrefix: () => ({ pk: "OPERATIONS", skPrefix: "SCHEDULERUN#" }),
};
