import { sweepAutomations } from "#core/automations/runs/schedule";
import { scheduledJob } from "#core/maintenance/schedule-runs";

/** EventBridge, every minute: due Schedule triggers, waits ending soon, stalled run steps. */
export const handler = scheduledJob("automationsDue", async () => {
  const result = await sweepAutomations();
  if (result.schedulesFired + result.runsResumed + result.runsUnreadable > 0)
    console.log(JSON.stringify({ level: "info", sweep: "automations", ...result }));
  return result;
});
