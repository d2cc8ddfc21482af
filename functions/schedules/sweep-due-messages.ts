import { sweepDueMessages } from "#core/messaging/sweeper";
import { scheduledJob } from "#core/maintenance/schedule-runs";

/** EventBridge, every minute: far-future scheduled sends, stuck dispatches, receipt timeouts. */
export const handler = scheduledJob("sweepDueMessages", async () => {
  const result = await sweepDueMessages();
  if (result.released + result.dispatched + result.expired > 0)
    console.log(JSON.stringify({ level: "info", sweep: "dueMessages", ...result }));
  return result;
});
