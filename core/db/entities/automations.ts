import { dueWorkShardOf } from "#core/db/due";
import { defineEntity } from "#core/db/entity";
import { listedOwnedEntity } from "#core/db/entities/owned";
import { automationsKeys } from "#core/db/keys/automations";
import { org } from "#core/db/keys/shared";
import type { StoredRun } from "#core/automations/runs/model";

/**
 * The Automation entity (docs/data-model.md): one item per automation definition in a partition of its own, listed
 * by creation (ULID ids) from gsi8. Its trigger index entries and immutable versions are items of their own
 * (core/automations/runs).
 */
export const AutomationEntity = listedOwnedEntity("Automation", automationsKeys.automation, {
  index: "automationsByCreation",
  partition: "AUTOMATIONS",
  prefix: "AUTOMATION#",
});

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
 * creation time, and, while unfinished, among its automation's active runs (write-sharded) and in the due index.
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
    /**
     * Unfinished runs by when they need attention (a wait ending, a stalled step to resend). Not tenant data: the
     * sweep's operator index across organizations, sharded by run id. Explicit: its time follows the engine's state
     * (core/automations/runs/store.ts), which the record alone does not say; the sweep's claim moves it.
     */
    due: {
      index: "dueWork",
      pk: (run: StoredRun & { shard?: number }) => `DUERUNS#${run.shard ?? dueWorkShardOf(run.id)}`,
      sk: (run: StoredRun) => `${run.dueAt}#${run.organizationId}#${run.automationId}#${run.id}`,
      composites: [],
      explicit: true,
    },
  },
});

type RunClaim = { organizationId: string; automationId: string; triggerEventId: string };

/**
 * The AutomationRunClaim entity: one per (automation, trigger event), naming the run it started (`runId`); put on
 * condition it is new before the run itself, so a redelivered trigger starts no second run. It does not store its
 * key's parts.
 */
export const AutomationRunClaimEntity = defineEntity({
  name: "AutomationRunClaim",
  attributes: [],
  key: ({ organizationId, automationId, triggerEventId }: RunClaim) =>
    automationsKeys.automationRunClaim(organizationId, automationId, triggerEventId),
  identity: ({ organizationId, automationId, triggerEventId }: RunClaim) => ({
    organizationId,
    automationId,
    triggerEventId,
  }),
  indexes: {},
});

type Version = { organizationId: string; automationId: string; version: number };

/** The AutomationVersion entity: the immutable definition of one automation version that its runs execute. */
export const AutomationVersionEntity = defineEntity({
  name: "AutomationVersion",
  attributes: [],
  key: ({ organizationId, automationId, version }: Version) =>
    automationsKeys.automationVersion(organizationId, automationId, version),
  identity: ({ organizationId, automationId, version }: Version & Record<string, unknown>) => ({
    organizationId,
    automationId,
    version,
  }),
  indexes: {},
});

type TriggerIdentity = { organizationId: string; type: string; automationId: string; triggerId: string };

/** A trigger index entry: the trigger's type, automation and id (the entry does not store its organization). */
export type StoredTrigger = TriggerIdentity & {
  /** A Schedule trigger's next firing (its due entry's time). */
  nextFireAt?: string;
} & Record<string, unknown>;

/**
 * The AutomationTrigger entity: one entry per enabled trigger of an enabled automation, written in the automation's
 * own transaction. Its collection is the organization's entries by trigger type (the fan-out reads one type's), and a
 * Schedule trigger is in the due index at its next firing.
 */
export const AutomationTriggerEntity = defineEntity({
  name: "AutomationTrigger",
  attributes: [],
  key: ({ organizationId, type, automationId, triggerId }: TriggerIdentity) =>
    automationsKeys.automationTrigger(organizationId, type, automationId, triggerId),
  identity: ({ organizationId, type, automationId, triggerId }: StoredTrigger) => ({
    organizationId,
    type,
    automationId,
    triggerId,
  }),
  collection: {
    name: "byType",
    pk: (trigger: StoredTrigger) => org(trigger.organizationId),
    // Without an automation, the type's prefix (`AUTOTRIGGER#<type>#`).
    sk: (trigger: StoredTrigger) =>
      trigger.automationId === undefined
        ? automationsKeys.automationTriggerPrefix(trigger.organizationId, trigger.type).skPrefix
        : automationsKeys.automationTrigger(
            trigger.organizationId,
            trigger.type,
            trigger.automationId,
            trigger.triggerId,
          ).sk,
  },
  indexes: {
    /**
     * Schedule triggers by their next firing. Not tenant data: the sweep's operator index across organizations,
     * sharded by automation id; derived from `nextFireAt`, which only Schedule entries hold.
     */
    due: {
      index: "dueWork",
      pk: (trigger: StoredTrigger & { shard?: number }) =>
        `DUESCHEDULES#${trigger.shard ?? dueWorkShardOf(trigger.automationId)}`,
      sk: (trigger: StoredTrigger) =>
        `${trigger.nextFireAt}#${trigger.organizationId}#${trigger.automationId}#${trigger.triggerId}`,
      composites: ["nextFireAt"],
      when: (trigger: StoredTrigger) => Boolean(trigger.nextFireAt),
    },
  },
});
