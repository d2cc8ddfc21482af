import { schedules, type ScheduleDefinition } from "./definitions.ts";
import { api } from "./api.ts";
import { handlerArgs, withDefaults } from "./functions.ts";
import { resourceName } from "./names.ts";

/** An EventBridge rule firing one manifest schedule (cron expressions are evaluated in UTC). */
export function schedule(definition: ScheduleDefinition) {
  return new sst.aws.Cron(`${resourceName(definition.name)}Cron`, {
    schedule: `cron(${definition.cron})`,
    function: withDefaults({ ...handlerArgs(definition), timeout: "60 seconds" }, api.url),
  });
}

/** One cron per schedule of the manifest. */
export const crons = schedules.map(schedule);
