import { AutomationRuns } from "#core/automations/runs/index";

/** EventBridge, every minute: due Schedule triggers, waits ending soon, stalled run steps. */
export const handler = async (): Promise<void> => {
  const result = await AutomationRuns.sweep();
  if (result.schedulesFired + result.runsResumed > 0) console.log(JSON.stringify({ level: "info", sweep: "automations", ...result }));
};
