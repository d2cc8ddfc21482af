import { sweepHolds } from "#core/maintenance/hold-sweeper";
import { scheduledJob } from "#core/maintenance/schedule-runs";

/** EventBridge, every 15 minutes: wallet holds whose message or call is final or gone are settled or released. */
export const handler = scheduledJob("sweepHolds", async () => {
  const result = await sweepHolds();
  if (result.settled + result.released + result.errors > 0)
    console.log(JSON.stringify({ level: "info", sweep: "holds", ...result }));
  return result;
});
