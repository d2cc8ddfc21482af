import { sweepDueCalls } from "#core/calls/sweeper";
import { scheduledJob } from "#core/maintenance/schedule-runs";

/** EventBridge, every 5 minutes: calls whose final status never came are ended and their holds released. */
export const handler = scheduledJob("sweepDueCalls", async () => {
  const result = await sweepDueCalls();
  if (result.reported + result.expired + result.errors > 0)
    console.log(JSON.stringify({ level: "info", sweep: "dueCalls", ...result }));
  return result;
});
