import type { Actor } from "#core/auth/actor";
import type { AutomationRun, StoredRun } from "#core/automations/runs/model";
import { publicRun, RunStore, storedAutomation } from "#core/automations/runs/store";
import { toStoredRun } from "#core/db/entities/packed-runs";
import { AutomationRunEntity } from "#core/db/entities/automations";
import { listPage, type ListResource, listQuerySchema } from "#core/db/list";
import { NotFoundError } from "#core/errors";
import { visibleTo } from "#core/automations/secrets";
import { type Page, type PagingQuery } from "#core/shared/paging";

// The run routes' records, apart from index.ts (the queue's handlers and the sweep) and manual.ts (starts and
// retries): reading and listing runs needs none of the engine.

const automationOf = (context: unknown) => (context as { automationId: string }).automationId;

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
  // One automation's runs from their write-sharded index (each run is in a partition of its own, issue 27), in
  // creation order (ULID ids), the shards read in parallel and merged.
  candidates: (organizationId, context) =>
    AutomationRunEntity.query("byAutomation", { organizationId, automationId: automationOf(context) }),
  orders: {
    createdAt: (organizationId, context, forward) =>
      AutomationRunEntity.plan("byAutomation", { organizationId, automationId: automationOf(context) }, { forward }),
  },
};

/** Body of the list operation: the paging query with this list's field names as enums. */
export const ListRunsSchema = listQuerySchema(runsResource);

/** Reading an automation's runs. */

export async function list(actor: Actor, automationId: string, query: PagingQuery): Promise<Page<AutomationRun>> {
  await visibleAutomation(actor, automationId);
  return listPage(runsResource, actor.organizationId, query, { automationId });
}

export async function fromId(actor: Actor, automationId: string, runId: string): Promise<AutomationRun> {
  await visibleAutomation(actor, automationId);
  return publicRun(await storedRun(actor, automationId, runId));
}

/** The automation, when the actor may see it (another agent's Private automation is not found, nor are its runs). */
async function visibleAutomation(actor: Actor, automationId: string) {
  const automation = await storedAutomation(actor.organizationId, automationId);
  if (!automation || !visibleTo(actor, automation)) throw new NotFoundError("Automation", automationId);
  return automation;
}

export async function storedRun(actor: Actor, automationId: string, runId: string): Promise<StoredRun> {
  const run = await RunStore.read(actor.organizationId, automationId, runId);
  if (!run) throw new NotFoundError("Automation run", runId);
  return run;
}
