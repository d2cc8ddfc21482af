import { schedules } from "./definitions.ts";
import { api } from "./api.ts";
import { handlerArgs, withDefaults } from "./functions.ts";
import { resourceName } from "./names.ts";

/** EventBridge rules firing the manifest's timed work (cron expressions are evaluated in UTC). */
export const crons = schedules.map(
  (schedule) =>
    new sst.aws.Cron(`${resourceName(schedule.name)}Cron`, {
      schedule: `cron(${schedule.cron})`,
      function: withDefaults({ ...handlerArgs(schedule), timeout: "60 seconds" }, api.url),
    }),
);
