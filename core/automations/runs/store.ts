import { createHash } from "node:crypto";
import { decodeTime, encodeTime } from "ulid";
import { dueWorkShardOf, dueWorkShards } from "#core/db/due";
import { transact, TransactionConditionFailed, Transaction } from "#core/db/transact";
import { table, isConditionFailed, conditionally, type PlannedRead } from "#core/db/items";
import { where, type Condition } from "#core/db/expression";
import type { Automation } from "#core/automations/index";
import { finalRunStatuses, type AutomationRun, type StoredRun } from "#core/automations/runs/model";
import type { Definition } from "#core/automations/runs/route";
import { queryAll } from "#core/db/query";
import { readableItems } from "#core/db/readable";
import {
  AutomationEntity,
  AutomationRunClaimEntity,
  AutomationRunEntity,
  AutomationVersionEntity,
} from "#core/db/entities/automations";
import { withoutKeys } from "#core/db/indexes";
import { packedRunItem, toStoredRun } from "#core/db/entities/packed-runs";
import { definitionOf } from "#core/automations/runs/trigger-index";

/** Shards of the due-run and due-schedule entries (the due-work index), so no partition is hot (core/db/due.ts). */
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
 * A put of a run with its indexes: by automation and organization (always) and active (while unfinished), derived by
 * its entity, and due (while unfinished) at the time the engine's state gives; unless `condition` fails. The run's
 * fields are stored packed (core/db/entities/packed-runs.ts).
 */
export function runPut(run: StoredRun, condition: Condition) {
  const due = isFinal(run) ? {} : AutomationRunEntity.entryIn("due", { ...run, dueAt: dueAtOf(run) });
  const put = AutomationRunEntity.put(run, { condition, extra: due });
  return { ...put, Item: packedRunItem(put.Item, run) };
}

/**
 * Trigger events whose id names what they are about by a ULID, and once only (`lead.created:<lead>`, a manual
 * start's `manual:<id>`): their runs' ids are derived from the event (`runIdOf`).
 */
const derivedIdEvents = /^(?:lead\.created|manual):([0-9A-HJKMNP-TV-Z]{26})$/;

/**
 * The id of the run of `automationId` for a trigger event, derived from the event where it can be (undefined
 * elsewhere): the time of the event's subject (a lead's creation, a manual start) and 80 bits of a hash of automation
 * and event. However often the event is delivered or republished, its run has one id, so the run's own conditional
 * put is its claim (`RunStore.create`). The time part keeps runs listed in about their creation order.
 */
export function runIdOf(automationId: string, eventId: string): string | undefined {
  const subject = derivedIdEvents.exec(eventId)?.[1];
  if (!subject) return undefined;
  const hash = createHash("sha256").update(`${automationId}\u0000${eventId}`).digest();
  const random = Array.from(hash.subarray(0, 16), (byte) => crockford[byte % 32]).join("");
  return encodeTime(decodeTime(subject), 10) + random;
}

const crockford = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";

/**
 * When this process started, less a margin for the clocks of the instances that stamp event ids. Runs of events
 * stamped after it were never seen by a version that claimed runs with a separate item (before issue 27), so their
 * derived id alone is the claim. An older event may have been claimed that way (a delivery just before a deploy, its
 * copy just after): it goes through the claim item, which then names the derived id unless such a claim names
 * another, so both ways agree on one run.
 */
const derivedClaimsFrom = Date.now() + 5_000;

function claimedByItsPut(run: StoredRun): boolean {
  return runIdOf(run.automationId, run.trigger.eventId) === run.id && decodeTime(run.id) >= derivedClaimsFrom;
}

/** Raised when a run changed under a writer (its `rev` moved on); the writer's work is stale. */
export class StaleRunError extends Error {}

export const RunStore = {
  async read(organizationId: string, automationId: string, runId: string): Promise<StoredRun | undefined> {
    const item = await AutomationRunEntity.get({ organizationId, automationId, id: runId }, { consistent: true });
    return item ? toStoredRun(item) : undefined;
  },

  /**
   * Replaces the run if nobody wrote it since `rev` was read, with the writes of `alongside` (its end event) in the
   * same transaction. Throws StaleRunError when the run moved on.
   */
  async write(run: StoredRun, alongside?: Transaction): Promise<StoredRun> {
    const next = { ...run, rev: run.rev + 1 };
    const put = runPut(next, where.equals("rev", run.rev));
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
   * Stores a new run, once per (automation, trigger event). A run whose id is derived from its event (`runIdOf`) is
   * one conditional put: the put is the claim. Otherwise (and for events a process before issue 27 may have seen) the
   * claim is an item of its own, as two plain conditional puts (half the write units of a transaction): the claim
   * first, naming the run's id, then the run. Answers the run that already holds
   * the claim when the event was seen before (a redelivered trigger). A claim whose run is missing (its writer
   * stopped between the two puts, or is between them right now) is completed with the claimed id: whichever put of
   * that run lands first creates it, the other answers it as existing, so one run per trigger event either way.
   */
  async create(run: StoredRun): Promise<{ run: StoredRun; created: boolean }> {
    if (claimedByItsPut(run)) {
      if (await conditionally(table.put(runPut(run, where.new())))) return { run, created: true };
      const existing = await RunStore.read(run.organizationId, run.automationId, run.id);
      if (!existing) throw new Error(`Run ${run.id} was refused as existing but cannot be read.`);
      return { run: existing, created: false };
    }
    const claim = {
      organizationId: run.organizationId,
      automationId: run.automationId,
      triggerEventId: run.trigger.eventId,
    };
    let toStore = run;
    const claimed = await conditionally(
      table.put(
        AutomationRunClaimEntity.putAt(claim, { runId: run.id, createdAt: run.createdAt }, { condition: where.new() }),
      ),
    );
    if (!claimed) {
      const stored = await AutomationRunClaimEntity.get(claim, { consistent: true });
      const claimedId = String(stored!.runId);
      const existing = await RunStore.read(run.organizationId, run.automationId, claimedId);
      if (existing) return { run: existing, created: false };
      toStore = { ...run, id: claimedId };
    }
    if (await conditionally(table.put(runPut(toStore, where.new())))) return { run: toStore, created: true };
    const existing = await RunStore.read(run.organizationId, run.automationId, toStore.id);
    if (!existing) throw new Error(`Run ${toStore.id} was refused as existing but cannot be read.`);
    return { run: existing, created: false };
  },

  /** Ids of the unfinished runs of one automation (its write-sharded active index, read merged). */
  async activeRunIds(organizationId: string, automationId: string): Promise<string[]> {
    const items = await queryAll(AutomationRunEntity.query("active", { organizationId, automationId }));
    return items.map((item) => String(item.id));
  },

  /** Runs of the organization created in [startAt, endAt); one that cannot be read is logged and left out. */
  async inRange(organizationId: string, startAt: string, endAt: string): Promise<StoredRun[]> {
    const items = await queryAll(
      AutomationRunEntity.query("byOrganization", { organizationId }, { range: { between: [startAt, endAt] } }),
    );
    return readableItems(items, toStoredRun).filter((run) => run.createdAt < endAt);
  },
};

/** Versions are immutable, so each process remembers the ones it read. */
const versionCache = new Map<string, Definition>();
const versionKey = (organizationId: string, automationId: string, version: number) =>
  `${organizationId}#${automationId}#${version}`;

/**
 * The definition a run executes: the automation at `version`, copied (immutable) in the automation's own transaction
 * (`versionWrite`). A step has its automation at hand (read with the run): while it is still at the run's version,
 * the definition is its own, and no copy is read.
 */
export const Versions = {
  async read(
    organizationId: string,
    automationId: string,
    version: number,
    current?: Automation,
  ): Promise<Definition | undefined> {
    if (current?.id === automationId && current.version === version) return definitionOf(current);
    const cacheKey = versionKey(organizationId, automationId, version);
    const cached = versionCache.get(cacheKey);
    if (cached) return cached;
    const stored = await AutomationVersionEntity.get({ organizationId, automationId, version });
    const definition = stored?.definition as Definition | undefined;
    if (definition) versionCache.set(cacheKey, definition);
    return definition;
  },
};

/** The stored automation with secrets (engine use only; responses go through Automations.fromId). */
export async function storedAutomation(organizationId: string, automationId: string): Promise<Automation | undefined> {
  return toAutomation(await AutomationEntity.get({ organizationId, id: automationId }, { consistent: true }));
}

function toAutomation(item: Record<string, unknown> | undefined): Automation | undefined {
  if (!item) return undefined;
  const { entity: _entity, ...automation } = withoutKeys(item);
  return automation as Automation;
}

/**
 * A step's run and its automation (with secrets), both consistent, in one BatchGetItem: a step needs both (the run's
 * cursor and lease, the automation's enabled flag), so one round trip instead of two; read with `readTogether`
 * (consistent), beside the step's lead when its message names it.
 */
export function runWithAutomationRead(
  organizationId: string,
  automationId: string,
  runId: string,
): PlannedRead<{ run: StoredRun | undefined; automation: Automation | undefined }> {
  return {
    keys: [
      AutomationRunEntity.key({ organizationId, automationId, id: runId }),
      AutomationEntity.key({ organizationId, id: automationId }),
    ],
    from: ([run, automation]) => ({ run: run ? toStoredRun(run) : undefined, automation: toAutomation(automation) }),
  };
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
  await conditionally(
    table.update(
      AutomationEntity.update(
        { organizationId, id: automationId },
        { lastRunAt: run.createdAt, lastRunStatus: run.status, lastRunError: run.error ?? null },
        {
          condition: where.all(
            where.stored(),
            where.any(
              where.absent("lastRunAt"),
              where.equals("lastRunAt", null),
              where.atMost("lastRunAt", run.createdAt),
            ),
          ),
        },
      ),
    ),
  );
}
