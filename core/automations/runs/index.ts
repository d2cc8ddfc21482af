import "#core/automations/runs/queue";
import { systemActor } from "#core/auth/actor";
import { Automations, type Automation } from "#core/automations/index";
import { Engine } from "#core/automations/runs/engine";
import type { StoredRun } from "#core/automations/runs/model";
import { ManualRuns } from "#core/automations/runs/manual";
import { AutomationRunRecords } from "#core/automations/runs/records";
import { sweepAutomations } from "#core/automations/runs/schedule";
import { runStep } from "#core/automations/runs/step";
import { RunStore, storedAutomation } from "#core/automations/runs/store";
import { triggerHandlers } from "#core/automations/runs/triggers";
import type { Envelope } from "#core/queue/messages";
import { type PagingQuery } from "#core/shared/paging";

export { AutomationRunSchema, StartRunSchema, RunParamsSchema, type AutomationRun } from "#core/automations/runs/model";
export { pickWeighted, evaluateGroup } from "#core/automations/runs/evaluate";
export { nextFireAt } from "#core/automations/runs/cron";
export { triggerIndexWrites } from "#core/automations/runs/trigger-index";
export { ListRunsSchema } from "#core/automations/runs/records";

/** One automation failure for analytics (spec 2.3 automationHealth). */
export interface AutomationFailure {
  automationId: string;
  name: string;
  failedAt: string;
  error: string;
}

/** Spec 2.3 `automationHealth` for runs created in [startAt, endAt). */
export interface AutomationHealth {
  automationCount: number;
  enabledCount: number;
  executions: number;
  successCount: number;
  failureCount: number;
  lastFailure: AutomationFailure | null;
  failingAutomations: AutomationFailure[];
}

/**
 * Handlers of the automationRuns queue: trigger fan-out, steps, schedule firings, cancellations. Apart from
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

/** Runs of automations: their records, manual starts, retries, health, and the queue's trigger and step handlers. */
export const AutomationRuns = {
  ...AutomationRunRecords,
  ...ManualRuns,

  /** Analytics `automationHealth` for the organization over [startAt, endAt). */
  async health(organizationId: string, range: { startAt: string; endAt: string }): Promise<AutomationHealth> {
    const [runs, automations] = await Promise.all([
      RunStore.inRange(organizationId, range.startAt, range.endAt),
      allAutomations(organizationId),
    ]);
    const names = new Map(automations.map((automation) => [automation.id, automation.name]));
    const failure = (run: StoredRun): AutomationFailure => ({
      automationId: run.automationId,
      name: names.get(run.automationId) ?? run.automationName,
      failedAt: run.finishedAt ?? run.modifiedAt,
      error: run.error ?? "Unknown error",
    });
    const newestFirst = [...runs].sort((a, b) => (a.createdAt < b.createdAt ? 1 : -1));
    const failed = newestFirst.filter((run) => run.status === "Failed");
    const latestByAutomation = new Map<string, StoredRun>();
    for (const run of newestFirst)
      if (!latestByAutomation.has(run.automationId) && run.status !== "Pending")
        latestByAutomation.set(run.automationId, run);
    return {
      automationCount: automations.length,
      enabledCount: automations.filter((automation) => automation.enabled).length,
      executions: runs.length,
      successCount: runs.filter((run) => run.status === "Succeeded").length,
      failureCount: failed.length,
      lastFailure: failed[0] ? failure(failed[0]) : null,
      failingAutomations: [...latestByAutomation.values()].filter((run) => run.status === "Failed").map(failure),
    };
  },

  /** Handlers of the automationRuns queue (`automationRunHandlers`). */
  handlers: automationRunHandlers,

  sweep: sweepAutomations,
};

/** Cancels every unfinished run of an automation (after it was disabled or deleted). */
async function cancelActiveRuns(organizationId: string, automationId: string, reason: string): Promise<number> {
  const ids = await RunStore.activeRunIds(organizationId, automationId);
  const automation = await storedAutomation(organizationId, automationId);
  if (automation?.enabled) return 0;
  await Promise.all(ids.map((runId) => Engine.cancel(organizationId, automationId, runId, reason)));
  return ids.length;
}

async function allAutomations(organizationId: string): Promise<Automation[]> {
  const items: Automation[] = [];
  let continuationToken: string | undefined;
  do {
    const page = await Automations.list(systemActor(organizationId), {
      pageSize: 100,
      ...(continuationToken ? { continuationToken } : {}),
    } as PagingQuery);
    items.push(...page.items);
    continuationToken = page.continuationToken ?? undefined;
  } while (continuationToken);
  return items;
}
