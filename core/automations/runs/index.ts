import "#core/automations/runs/queue";
import { systemActor, type Actor } from "#core/auth/actor";
import { Automations, type Automation } from "#core/automations/index";
import { Engine } from "#core/automations/runs/engine";
import type { AutomationRun, StartRunRequest, StoredRun } from "#core/automations/runs/model";
import { sweepAutomations } from "#core/automations/runs/schedule";
import { publicRun, RunStore, storedAutomation, toStoredRun } from "#core/automations/runs/store";
import { triggerHandlers } from "#core/automations/runs/triggers";
import { keys } from "#core/db/keys";
import { keyOrder, listPage, type ListResource, listQuerySchema } from "#core/db/list";
import { ConflictError, NotFoundError, ValidationError } from "#core/errors";
import { Leads } from "#core/leads/index";
import type { Envelope } from "#core/queue/events";
import { newId } from "#core/shared/ids";
import { type Page, type PagingQuery } from "#core/shared/paging";

export { AutomationRunSchema, StartRunSchema, RunParamsSchema, type AutomationRun } from "#core/automations/runs/model";
export { pickWeighted, evaluateGroup } from "#core/automations/runs/evaluate";
export { nextFireAt } from "#core/automations/runs/cron";
export { triggerIndexWrites } from "#core/automations/runs/trigger-index";


const runsResource: ListResource<AutomationRun> = {
  name: "automation runs",
  fields: {
    status: { get: (run) => run.status, kind: "string", filter: true },
    leadId: { get: (run) => run.leadId, kind: "string", filter: true },
    automationVersion: { get: (run) => run.automationVersion, kind: "number", filter: true },
    triggerType: { get: (run) => run.trigger.type, kind: "string", filter: true },
    createdAt: { get: (run) => run.createdAt, kind: "date", sort: true, range: true },
    finishedAt: { get: (run) => run.finishedAt, kind: "date", sort: true, range: true },
    error: { get: (run) => run.error, kind: "string", search: true },
  },
  defaultOrder: [{ field: "createdAt", direction: "desc" }],
  idOf: (run) => run.id,
  fromItem: (item) => publicRun(toStoredRun(item)),
  candidates: (organizationId, context) => {
    const { pk, skPrefix } = keys.automationRunPrefix(organizationId, (context as { automationId: string }).automationId);
    return { KeyConditionExpression: "pk = :pk AND begins_with(sk, :prefix)", ExpressionAttributeValues: { ":pk": pk, ":prefix": skPrefix } };
  },
  orders: {
    createdAt: keyOrder((organizationId, context) => keys.automationRunPrefix(organizationId, (context as { automationId: string }).automationId)),
  },
};

/** Body of the list operation: the paging query with this list's field names as enums. */
export const ListRunsSchema = listQuerySchema(runsResource);

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

/** Runs of automations: their records, manual starts, retries, health, and the queue's trigger and step handlers. */
export const AutomationRuns = {
  async list(actor: Actor, automationId: string, query: PagingQuery): Promise<Page<AutomationRun>> {
    await Automations.fromId(actor, automationId);
    return listPage(runsResource, actor.organizationId, query, { automationId });
  },

  async fromId(actor: Actor, automationId: string, runId: string): Promise<AutomationRun> {
    return publicRun(await storedRun(actor, automationId, runId));
  },

  /**
   * `POST /automations/{id}/runs`: a manual run for one lead (the test button), also for a disabled automation.
   * It starts from the Manual trigger, else the first enabled trigger, unless `triggerId` names one.
   */
  async start(actor: Actor, automationId: string, input: StartRunRequest): Promise<AutomationRun> {
    const automation = await storedAutomation(actor.organizationId, automationId);
    if (!automation) throw new NotFoundError("Automation", automationId);
    const lead = await Leads.find(actor.organizationId, input.leadId);
    if (!lead) throw new ValidationError("The lead does not exist in this organization.", [{ pointer: "/leadId", detail: `Lead ${input.leadId} was not found.` }]);
    const trigger = chooseTrigger(automation, input.triggerId);
    const { run } = await Engine.start(automation, trigger, { id: `manual:${newId()}`, type: "Manual", leadId: lead.id, data: { requestedBy: actor.displayName } });
    return publicRun(run);
  },

  /** `POST /automations/{id}/runs/{runId}/retry`: continues a Failed run from the failed step (202). */
  async retry(actor: Actor, automationId: string, runId: string): Promise<AutomationRun> {
    const run = await storedRun(actor, automationId, runId);
    if (run.status !== "Failed" || !run.steps.some((step) => step.status === "Failed" || step.status === "Blocked")) {
      throw new ConflictError(`Only a run that failed at a step can be retried; this run is ${run.status}.`);
    }
    return publicRun(await Engine.retry(run));
  },

  /** Analytics `automationHealth` for the organization over [startAt, endAt). */
  async health(organizationId: string, range: { startAt: string; endAt: string }): Promise<AutomationHealth> {
    const [runs, automations] = await Promise.all([RunStore.inRange(organizationId, range.startAt, range.endAt), allAutomations(organizationId)]);
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
    for (const run of newestFirst) if (!latestByAutomation.has(run.automationId) && run.status !== "Pending") latestByAutomation.set(run.automationId, run);
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

  /** Cancels every unfinished run of an automation (after it was disabled or deleted). */
  async cancelActive(organizationId: string, automationId: string, reason: string): Promise<number> {
    const ids = await RunStore.activeRunIds(organizationId, automationId);
    const automation = await storedAutomation(organizationId, automationId);
    if (automation?.enabled) return 0;
    await Promise.all(ids.map((runId) => Engine.cancel(organizationId, automationId, runId, reason)));
    return ids.length;
  },

  /** Handlers of the automationRuns queue: trigger fan-out, steps, schedule firings, cancellations. */
  handlers: {
    ...triggerHandlers,
    "automation.step": {
      handle: (message: Envelope<"automation.step">) => Engine.step(message.organizationId, message.data),
      onPoison: (message: Envelope<"automation.step">, error: unknown) => Engine.abandon(message.organizationId, message.data, error),
    },
    "automation.disabled": async (message: Envelope<"automation.disabled">) => {
      await AutomationRuns.cancelActive(message.organizationId, message.data.automationId, "The automation was disabled.");
    },
  },

  sweep: sweepAutomations,
};

async function storedRun(actor: Actor, automationId: string, runId: string): Promise<StoredRun> {
  const run = await RunStore.read(actor.organizationId, automationId, runId);
  if (!run) throw new NotFoundError("Automation run", runId);
  return run;
}

function chooseTrigger(automation: Automation, triggerId: string | undefined) {
  if (triggerId) {
    const named = automation.triggers.find((trigger) => trigger.id === triggerId);
    if (!named) throw new ValidationError("The automation has no such trigger.", [{ pointer: "/triggerId", detail: `No trigger "${triggerId}" in this automation.` }]);
    return named;
  }
  const enabled = automation.triggers.filter((trigger) => trigger.isEnabled);
  const chosen = enabled.find((trigger) => trigger.type === "Manual") ?? enabled[0];
  if (!chosen) throw new ValidationError("The automation has no enabled trigger to start from.", [{ pointer: "/triggerId", detail: "Add a Manual trigger or enable one." }]);
  return chosen;
}

async function allAutomations(organizationId: string): Promise<Automation[]> {
  const items: Automation[] = [];
  let continuationToken: string | undefined;
  do {
    const page = await Automations.list(systemActor(organizationId), { pageSize: 100, ...(continuationToken ? { continuationToken } : {}) } as PagingQuery);
    items.push(...page.items);
    continuationToken = page.continuationToken ?? undefined;
  } while (continuationToken);
  return items;
}
