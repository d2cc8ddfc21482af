import "#core/automations/runs/queue";
import { systemActor } from "#core/auth/actor";
import * as Automations from "#core/automations/automations";
import type { Automation } from "#core/automations/index";
import type { StoredRun } from "#core/automations/runs/model";
import { sweepAutomations } from "#core/automations/runs/schedule";
import { RunStore } from "#core/automations/runs/store";
import { automationRunHandlers } from "#core/automations/runs/handlers";
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

/** Runs of automations: health, the queue's trigger and step handlers, the sweep (records: runs/records.ts; manual starts and retries: runs/manual.ts). */

/** Analytics `automationHealth` for the organization over [startAt, endAt). */
export async function health(
  organizationId: string,
  range: { startAt: string; endAt: string },
): Promise<AutomationHealth> {
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
}

/** Handlers of the automationRuns queue (`automationRunHandlers`). */
export { automationRunHandlers as handlers };

export { sweepAutomations as sweep };

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
