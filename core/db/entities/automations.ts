import { defineEntity } from "#core/db/entity";
import { ownedEntity } from "#core/db/entities/owned";
import { automationsKeys } from "#core/db/keys/automations";
import { org } from "#core/db/keys/shared";
import type { StoredRun } from "#core/automations/runs/model";

/**
 * The Automation entity (docs/data-model.md): one item per automation definition under its organization, in the
 * order of its ULID id. Its trigger index entries and immutable versions are items of their own
 * (core/automations/runs).
 */
export const AutomationEntity = ownedEntity("Automation", automationsKeys.automation, "AUTOMATION#");

/**
 * Shards of an automation's run listings (issue 27): an automation triggered by every lead takes a run per lead, 167
 * a second at the goal, and its unfinished runs' index takes an entry written and one removed per run; with eight,
 * each shard carries an eighth (docs/scale.md), and a page reads the eight in parallel.
 */
export const runListShards = 8;
const byRun = { count: runListShards, by: (run: StoredRun) => run.id };
const runKey = (id: string | undefined) => `RUN#${id ?? ""}`;

/**
 * The AutomationRun entity (docs/data-model.md): one item per run in a partition of its own
 * (`ORG#o#RUN#<automation>#<run>`), listed per automation (write-sharded, creation order), per organization by
 * creation time, and, while unfinished, among its automation's active runs (write-sharded). The due-work entry
 * (gsi3) is the run store's: its time follows the engine's state (core/automations/runs/store.ts).
 */
export const AutomationRunEntity = defineEntity({
  name: "AutomationRun",
  attributes: [],
  key: ({ organizationId, automationId, id }: { organizationId: string; automationId: string; id: string }) =>
    automationsKeys.automationRun(organizationId, automationId, id),
  identity: (run: StoredRun) => ({ organizationId: run.organizationId, automationId: run.automationId, id: run.id }),
  indexes: {
    /** One automation's runs in creation order (ULID ids), newest first when read backwards. */
    byAutomation: {
      index: "runsByAutomation",
      pk: (run: StoredRun, shard: number) => `${org(run.organizationId)}#AUTOMATION#${run.automationId}#RUNS#${shard}`,
      sk: (run: StoredRun) => runKey(run.id),
      composites: [],
      shards: byRun,
    },
    /** Every run of the organization by creation time (analytics' automation health reads a window of it). */
    byOrganization: {
      index: "runsByOrganization",
      pk: (run: StoredRun) => `${org(run.organizationId)}#RUNS`,
      sk: (run: StoredRun) => (run.createdAt ? `${run.createdAt}#${run.id}` : ""),
      composites: [],
    },
    /**
     * The unfinished runs of one automation (disabling it cancels them). A run is unfinished until the engine's
     * `finish` stamps `finishedAt` (a retry clears it again): the run store's `isFinal`, in the record's terms.
     */
    active: {
      index: "activeRunsByAutomation",
      pk: (run: StoredRun, shard: number) =>
        `${org(run.organizationId)}#AUTOMATION#${run.automationId}#ACTIVERUNS#${shard}`,
      sk: (run: StoredRun) => runKey(run.id),
      composites: ["finishedAt"],
      when: (run: StoredRun) => !run.finishedAt,
      shards: byRun,
    },
  },
});
