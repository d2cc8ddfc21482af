import { table } from "#core/db/items";
import { computed } from "#core/db/expression";
import { AnalyticsMilestonesEntity, AnalyticsRollupEntity } from "#core/db/entities/analytics";
import { maxDays, type FineRollupsFrom } from "#core/analytics/range";

/**
 * Minute and second rollups (`ANALYTICS#M#2026-01-05T14:07`, `ANALYTICS#S#2026-01-05T14:07:33`): only the sub-hour
 * edges of a window read them, so a busy organization's partial hours cost at most 59 minute items and 59 second
 * items each, instead of every event of the partial hour (or of its partial minutes). Written by the stream
 * aggregator in the same transaction as the hour, day and week items.
 *
 * They are complete only for minutes (seconds) whose every fact was counted by an aggregator that writes them. The
 * organization's milestones item records from when (`minuteRollupsFrom`, `secondRollupsFrom`, epoch ms); earlier
 * edges are read from the records as before, so a deploy over existing data never reports a partial item.
 */

const dayMs = 24 * 3600_000;

/**
 * Edges of any window a query can name with `days` (ending now) and of its previous period lie within
 * 2 × 365 days: minute items are read that far back and expire (TTL) two days later, so none is read as it expires.
 */
export const minutesReadableMs = 2 * maxDays * dayMs;
const minutesKeptMs = minutesReadableMs + 2 * dayMs;

/** TTL (`expiresAt`, epoch seconds) of the minute (or second) item starting at `minuteStart`. */
export const minuteExpiresAt = (minuteStart: number) => Math.floor((minuteStart + minutesKeptMs) / 1000);

/** Whether a fact at `at` still gets minute and second items (older ones are no longer read; writing them would be waste). */
export const minuteKept = (at: number, now = Date.now()) => at >= now - minutesReadableMs;

/** The earliest time from which minute rollups answer a read, given the stored `minuteRollupsFrom` (undefined: none). */
export function readableFrom(stored: unknown, now = Date.now()): number | undefined {
  return typeof stored === "number" ? Math.max(stored, now - minutesReadableMs) : undefined;
}

/** From when the minute and second rollups of a stored milestones item answer a read (Infinity: not at all). */
export function fineRollupsFrom(milestones: Record<string, unknown> | undefined, now = Date.now()): FineRollupsFrom {
  return {
    minutes: readableFrom(milestones?.minuteRollupsFrom, now) ?? Infinity,
    seconds: readableFrom(milestones?.secondRollupsFrom, now) ?? Infinity,
  };
}

/** `fineRollupsFrom` of the organization's milestones item. */
export async function storedFineRollupsFrom(organizationId: string, now = Date.now()): Promise<FineRollupsFrom> {
  const milestones = await AnalyticsMilestonesEntity.get(
    { organizationId },
    { attributes: ["minuteRollupsFrom", "secondRollupsFrom"] },
  );
  return fineRollupsFrom(milestones, now);
}

/**
 * From when (epoch ms, by an event's `createdAt`) a message's or call's events are counted once under one shared
 * marker (`AnalyticsCountedSet`) instead of a marker each (issue 27). An event is always checked under the one kind
 * its time names, so one counted before the change and redelivered after it is not counted again. Organizations
 * with counts before get it ten minutes ahead of the first aggregator of this version to see them: by then no
 * aggregator of the version before still runs (a deploy replaces them within a function timeout; the issue-27
 * release pauses consumers until every function is updated).
 */
const groupedMarkersAheadMs = 10 * 60_000;

/** What this warm instance learnt of an organization's counting start (`markCountingStart`): it never changes once set. */
const marked = new Map<string, number>();

/**
 * Records, before the aggregator first counts for an organization, from when its minute and second rollups are complete:
 * from the start when nothing was counted before (no hour item exists), else from a whole minute at least a minute
 * ahead (facts counted before this aggregator version ran are not in minute items; the margin covers clock skew
 * between the producers and the aggregator); and from when its events are counted under shared markers (the same
 * rule, ten minutes ahead). Each kept if already set. Answers the stored `groupedMarkersFrom`.
 */
export async function markCountingStart(organizationId: string, now = Date.now()): Promise<number> {
  const known = marked.get(organizationId);
  if (known !== undefined) return known;
  const hours = AnalyticsRollupEntity.sortKey("collection", { organizationId, level: "H" });
  const { Items } = await table.query(
    AnalyticsRollupEntity.queryPartition(
      "collection",
      { organizationId, level: "H" },
      { range: { between: [hours, `${hours}~`] }, attributes: ["sk"], consistent: true, limit: 1 },
    ),
  );
  const countedBefore = Boolean(Items?.length);
  const ahead = (ms: number) => (countedBefore ? Math.ceil((now + ms) / 60_000) * 60_000 : 0);
  const minutesFrom = ahead(60_000);
  const { Attributes } = await table.update({
    ...AnalyticsMilestonesEntity.update(
      { organizationId },
      {
        entity: AnalyticsMilestonesEntity.name,
        minuteRollupsFrom: computed.ifAbsent(minutesFrom),
        secondRollupsFrom: computed.ifAbsent(minutesFrom),
        groupedMarkersFrom: computed.ifAbsent(ahead(groupedMarkersAheadMs)),
      },
    ),
    ReturnValues: "ALL_NEW",
  });
  const groupedFrom = Number(Attributes?.groupedMarkersFrom);
  // Never guessed: an event checked under the wrong kind of marker could be counted twice.
  if (!Number.isFinite(groupedFrom))
    throw new Error(`No groupedMarkersFrom stored for organization ${organizationId}.`);
  marked.set(organizationId, groupedFrom);
  return groupedFrom;
}

/**
 * Sets `minuteRollupsFrom` and `secondRollupsFrom`, each unless it is set (backfill into empty rollups: 0, every minute
 * and second is written). An organization whose minute rollups began under an earlier version gets its second rollups
 * from now on.
 */
export async function setMinuteRollupsFrom(organizationId: string, from: number): Promise<void> {
  await table.update(
    AnalyticsMilestonesEntity.update(
      { organizationId },
      {
        entity: AnalyticsMilestonesEntity.name,
        minuteRollupsFrom: computed.ifAbsent(from),
        secondRollupsFrom: computed.ifAbsent(from),
      },
    ),
  );
}
