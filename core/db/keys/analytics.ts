import { org, ownPartition, type Key } from "#core/db/keys/shared";

/**
 * The partition of one rollup level's items (issue 27): every stream batch of a busy organization rewrites its
 * current second, minute, hour, day and week items (and their histograms), ~19 write units a lead in all, more than
 * the organization's own partition can take at the goal beside everything else. Each level in its own partition
 * takes only its current item's writes, and a report still reads a level's buckets as one key range.
 */
const analyticsLevelPartition = (organizationId: string, level: string) => `${org(organizationId)}#ANALYTICS#${level}`;

/** Keys of the items core/analytics owns (docs/data-model.md). */
export const analyticsKeys = {
  /**
   * Analytics (core/analytics): per-second (`S`, bucket `2026-01-05T14:07:33`) and per-minute
   * (`M`, bucket `2026-01-05T14:07`), both with a TTL and read only at the sub-hour edges of a window, per-hour (`H`, bucket `2026-01-05T14`), per-day
   * (`D`, bucket `2026-01-05`) and per-ISO-week (`W`, bucket = its Monday
   * `2026-01-05`) counters, UTC; one item per lead counted (its
   * creation source and first response, sorted by lead id = creation time); one
   * item per conversation with unread messages; first-time milestones.
   */
  analyticsRollup: (organizationId: string, level: "S" | "M" | "H" | "D" | "W", bucket: string): Key => ({
    pk: analyticsLevelPartition(organizationId, level),
    sk: `ANALYTICS#${level}#${bucket}`,
  }),
  /** The response-time histograms of one rollup bucket, sorted right after it (one range query reads both). */
  analyticsHistogram: (organizationId: string, level: "H" | "D" | "W", bucket: string): Key => ({
    pk: analyticsLevelPartition(organizationId, level),
    sk: `ANALYTICS#${level}#${bucket}#HIST`,
  }),
  /**
   * One counted lead's facts, in a partition of its own (issue 27: put and updated per lead); the organization's
   * are read by creation from the AnalyticsLead entity's write-sharded index (core/db/entities/analytics.ts).
   */
  analyticsLead: (organizationId: string, leadId: string): Key =>
    ownPartition(organizationId, `ANALYTICS#LEAD#${leadId}`),
  /**
   * The earliest response to a lead still being processed (not counted yet): its LeadCreated counting picks it up
   * (expires by TTL, so a lead that is never processed leaves nothing behind). Read by key only, so in a partition
   * of its own (issue 27).
   */
  analyticsEarlyResponse: (organizationId: string, leadId: string): Key =>
    ownPartition(organizationId, `ANALYTICS#EARLY#${leadId}`),
  analyticsMilestones: (organizationId: string): Key => ({ pk: org(organizationId), sk: "ANALYTICS#MILESTONES" }),
  /**
   * Marker of an event counted by the stream aggregator (expires by TTL once the stream can no longer redeliver it).
   * One per event, ~8 a lead, only ever put on condition of its absence: in a partition of its own (issue 27).
   */
  analyticsCounted: (organizationId: string, eventId: string): Key =>
    ownPartition(organizationId, `ANALYTICS#COUNTED#${eventId}`),
  /**
   * The count-once marker shared by the events of one message or call (`Message#<id>`, `Call#<id>`): the set of its
   * events counted, so the status events one batch counts of it take one marker (issue 27). In a partition of its own.
   */
  analyticsCountedSet: (organizationId: string, subject: string): Key =>
    ownPartition(organizationId, `ANALYTICS#COUNTED#${subject}`),
};
