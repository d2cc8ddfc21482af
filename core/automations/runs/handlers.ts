import "#core/automations/runs/queue";
import * as Engine from "#core/automations/runs/engine";
import { runStep } from "#core/automations/runs/step";
import { RunStore, storedAutomation } from "#core/automations/runs/store";
import { triggerHandlers } from "#core/automations/runs/triggers";
import type { Envelope } from "#core/queue/messages";

/**
 * Handlers of the automationRuns queue: trigger fan-out, steps, schedule firings, cancellations. A module apart from
 * `AutomationRuns` (which names them), so the queue's consumer bundles neither the run reads nor the health report.
 */
export const automationRunHandlers = {
  ...triggerHandlers,
  "automation.step": {
    handle: (message: Envelope<"automation.step">) => runStep(message.organizationId, message.data),
    onPoison: (message: Envelope<"automation.step">, error: unknown) =>
      Engine.abandon(message.organizationId, message.data, error),
  },
  "automation.disabled": async (message: Envelope<"automation.disabled">) => {
    await cancelActiveRuns(message.organizationId, message.data.automationId, "The automation was disabled.");
  },
};

/** Cancels every unfinished run of an automation (after it was disabled or deleted). */
async function cancelActiveRuns(organizationId: string, automationId: string, reason: string): Promise<number> {
  const ids = await RunStore.activeRunIds(organizationId, automationId);
  const automation = await storedAutomation(organizationId, automationId);
  if (automation?.enabled) return 0;
  await Promise.all(ids.map((runId) => Engine.cancel(organizationId, automationId, runId, reason)));
  return ids.length;
}
