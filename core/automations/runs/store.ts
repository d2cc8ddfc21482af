import { dueWorkShardOf, dueWorkShards } from "#core/db/due";
import { transact, TransactionConditionFailed, Transaction } from "#core/db/transact";
import { table, isConditionFailed, putIfNew, claimKey } from "#core/db/items";
import type { Automation } from "#core/automations/index";
import { finalRunStatuses, type AutomationRun, type StoredRun } from "#core/automations/runs/model";
import type { Definition } from "#core/automations/runs/route";
import { entities, keys } from "#core/db/keys";
import { queryAll } from "#core/db/query";
import { AutomationRunEntity } from "#core/db/entities/automations";
import { withoutKeys } from "#core/db/indexes";

/** Shards of the due-run and due-schedule indexes (gsi3), so no partition is hot (core/db/due.ts). */
export const dueShards = dueWorkShards;
export const shardOf = dueWorkShardOf;

/** A running step not finished in this long is resent by the sweep (a lost queue message, a crashed consumer). */
export const STALL_MS = 2 * 60_000;

const privateFields = ["cursorSeq", "cursorAttempt", "effectId", "leaseToken", "leaseUntil", "rev", "dueAt"] as const;

export function isFinal(run: Pick<AutomationRun, "status">): boolean {
  return finalRunStatuses.includes(run.status);
}

/** The response shape of a stored run (engine fields removed). */
export function publicRun(run: StoredRun): AutomationRun {
  return Object.fromEntries(
    Object.entries(run).filter(([key]) => !(privateFields as readonly string[]).includes(key)),
  ) as AutomationRun;
}

/** When the sweep should look at an unfinished run: the end of its wait, or a stall deadline. */
function dueAtOf(run: StoredRun): string {
  if (run.dueAt) return run.dueAt;
  if (run.status === "Waiting" && run.waitingUntil) return run.waitingUntil;
  return new Date(Date.parse(run.modifiedAt) + STALL_MS).toISOString();
}

/**
 * The stored item of a run with its indexes: by automation and organization (always), active (while unfinished),
 * declared with its entity, and due (while unfinished) at the time the engine's state gives.
 */
export function runItem(run: StoredRun): Record<string, unknown> {
  const due = isFinal(run)
    ? {}
    : keys.dueRun(shardOf(run.id), dueAtOf(run), run.organizationId, run.automationId, run.id);
  return AutomationRunEntity.item(run, due);
}

export function toStoredRun(item: Record<string, unknown>): StoredRun {
  const { entity: _entity, ...run } = withoutKeys(item);
  return run as unknown as StoredRun;
}

/** Raised when a run changed under a writer (its `rev` moved on); the writer's work is stale. */
export class StaleRunError extends Error {}

export const RunStore = {
  async read(organizationId: string, automationId: string, runId: string): Promise<StoredRun | undefined> {
    const { Item } = await table.get({
      Key: keys.automationRun(organizationId, automationId, runId),
      ConsistentRead: true,
    });
    return Item ? toStoredRun(Item) : undefined;
  },

  /**
   * Replaces the run if nobody wrote it since `rev` was read, with the writes of `alongside` (its end event) in the
   * same transaction. Throws StaleRunError when the run moved on.
   */
  async write(run: StoredRun, alongside?: Transaction): Promise<StoredRun> {
    const next = { ...run, rev: run.rev + 1 };
    const put = {
      Item: runItem(next),
      ConditionExpression: "rev = :rev",
      ExpressionAttributeValues: { ":rev": run.rev },
    };
    try {
      if (!alongside) await table.put(put);
      else await transact(alongside.put("run", put));
    } catch (error) {
      const staleRun = isConditionFailed(error) || (error instanceof TransactionConditionFailed && error.failed("run"));
      if (staleRun) throw new StaleRunError(`Run ${run.id} changed meanwhile.`);
      throw error;
    }
    return next;
  },

  /**
   * Stores a new run with its claim on (automation, trigger event), as two plain conditional puts (half the write
   * units of a transaction): the claim first, naming the run's id, then the run. Answers the run that already holds
   * the claim when the event was seen before (a redelivered trigger). A claim whose run is missing (its writer
   * stopped between the two puts, or is between them right now) is completed with the claimed id: whichever put of
   * that run lands first creates it, the other answers it as existing, so one run per trigger event either way.
   */
  async create(run: StoredRun): Promise<{ run: StoredRun; created: boolean }> {
    const claim = keys.automationRunClaim(run.organizationId, run.automationId, run.trigger.eventId);
    let toStore = run;
    if (!(await claimKey(claim, { entity: entities.automationRunClaim, runId: run.id, createdAt: run.createdAt }))) {
      const { Item } = await table.get({ Key: claim, ConsistentRead: true });
      const claimedId = String(Item!.runId);
      const existing = await RunStore.read(run.organizationId, run.automationId, claimedId);
      if (existing) return { run: existing, created: false };
      toStore = { ...run, id: claimedId };
    }
    if (await putIfNew(runItem(toStore))) return { run: toStore, created: true };
    const existing = await RunStore.read(run.organizationId, run.automationId, toStore.id);
    if (!existing) throw new Error(`Run ${toStore.id} was refused as existing but cannot be read.`);
    return { run: existing, created: false };
  },

  /** Ids of the unfinished runs of one automation (its write-sharded active index, read merged). */
  async activeRunIds(organizationId: string, automationId: string): Promise<string[]> {
    const items = await queryAll(AutomationRunEntity.query("active", { organizationId, automationId }));
    return items.map((item) => String(item.id));
  },

  /** Runs of the organization created in [startAt, endAt). */
  async inRange(organizationId: string, startAt: string, endAt: string): Promise<StoredRun[]> {
    const items = await queryAll(
      AutomationRunEntity.query("byOrganization", { organizationId }, { range: { between: [startAt, endAt] } }),
    );
    return items.map(toStoredRun).filter((run) => run.createdAt < endAt);
  },
};

/** Versions are immutable, so each process remembers the ones it wrote or read. */
const versionCache = new Map<string, Definition>();
const versionKey = (organizationId: string, automationId: string, version: number) =>
  `${organizationId}#${automationId}#${version}`;

/** The definition a run executes: the automation at `version`, copied once (immutable) when a run first needs it. */
export const Versions = {
  async ensure(automation: Automation): Promise<void> {
    const cacheKey = versionKey(automation.organizationId, automation.id, automation.version);
    if (versionCache.has(cacheKey)) return;
    try {
      await table.put({
        Item: {
          ...keys.automationVersion(automation.organizationId, automation.id, automation.version),
          entity: entities.automationVersion,
          automationId: automation.id,
          version: automation.version,
          name: automation.name,
          definition: definitionOf(automation),
        },
        ConditionExpression: "attribute_not_exists(pk)",
      });
    } catch (error) {
      if (!isConditionFailed(error)) throw error;
    }
    versionCache.set(cacheKey, definitionOf(automation));
  },

  async read(organizationId: string, automationId: string, version: number): Promise<Definition | undefined> {
    const cacheKey = versionKey(organizationId, automationId, version);
    const cached = versionCache.get(cacheKey);
    if (cached) return cached;
    const { Item } = await table.get({ Key: keys.automationVersion(organizationId, automationId, version) });
    const definition = Item?.definition as Definition | undefined;
    if (definition) versionCache.set(cacheKey, definition);
    return definition;
  },
};

export function definitionOf(automation: Automation): Definition {
  return {
    triggers: automation.triggers,
    conditionGroups: automation.conditionGroups,
    actions: automation.actions,
    connections: automation.connections,
  } as Definition;
}

/** The stored automation with secrets (engine use only; responses go through Automations.fromId). */
export async function storedAutomation(organizationId: string, automationId: string): Promise<Automation | undefined> {
  const { Item } = await table.get({ Key: keys.automation(organizationId, automationId), ConsistentRead: true });
  if (!Item) return undefined;
  const { pk: _pk, sk: _sk, entity: _entity, ...automation } = Item;
  return automation as Automation;
}

/**
 * Sets the automation's lastRunAt/lastRunStatus (and the run's error, which analytics shows for failing automations)
 * unless a newer run already did (runs finish out of order).
 */
export async function noteLastRun(
  organizationId: string,
  automationId: string,
  run: { createdAt: string; status: string; error: string | null },
): Promise<void> {
  try {
    await table.update({
      Key: keys.automation(organizationId, automationId),
      UpdateExpression: "SET lastRunAt = :at, lastRunStatus = :status, lastRunError = :error",
      ConditionExpression:
        "attribute_exists(pk) AND (attribute_not_exists(lastRunAt) OR lastRunAt = :null OR lastRunAt <= :at)",
      ExpressionAttributeValues: {
        ":at": run.createdAt,
        ":status": run.status,
        ":error": run.error ?? null,
        ":null": null,
      },
    });
  } catch (error) {
    if (!isConditionFailed(error)) throw error;
  }
}
