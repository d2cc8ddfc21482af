import { defineEntity } from "#core/db/entity";
import { analyticsKeys } from "#core/db/keys/analytics";
import { org } from "#core/db/keys/shared";

/** The per-lead analytics item (the lead's counting facts and first response; core/analytics/rollups.ts). */
export type StoredLeadFacts = { organizationId: string; leadId: string } & Record<string, unknown>;

/**
 * Shards of the organization's counted leads by creation (issue 27): one entry per lead, 167 a second at the goal,
 * so a shard takes ~21 write units a second with eight, and a window's read queries the eight in parallel.
 */
export const analyticsLeadShards = 8;

/**
 * The AnalyticsLead entity (docs/data-model.md): one item per counted lead in a partition of its own
 * (`ORG#o#ANALYTICS#LEAD#<lead>`; its put and updates are the lead's count-once markers), the organization's in
 * creation order (lead ids are ULIDs) from a write-sharded index: the exact edges of a report's window read a range
 * of it.
 */
export const AnalyticsLeadEntity = defineEntity({
  name: "AnalyticsLead",
  attributes: [],
  key: ({ organizationId, leadId }: { organizationId: string; leadId: string }) =>
    analyticsKeys.analyticsLead(organizationId, leadId),
  identity: (facts: StoredLeadFacts) => ({ organizationId: facts.organizationId, leadId: facts.leadId }),
  indexes: {
    byCreation: {
      index: "analyticsLeadsByCreation",
      pk: (facts: StoredLeadFacts, shard: number) => `${org(facts.organizationId)}#ANALYTICSLEADS#${shard}`,
      sk: (facts: StoredLeadFacts) => analyticsKeys.analyticsLead(facts.organizationId, facts.leadId ?? "").sk,
      composites: [],
      shards: { count: analyticsLeadShards, by: (facts: StoredLeadFacts) => facts.leadId },
    },
  },
});

type Bucketed<L extends string> = { organizationId: string; level: L; bucket: string };

/**
 * The AnalyticsRollup entity: one item of counters per organization, level (`S`, `M`, `H`, `D`, `W`) and UTC bucket
 * in a partition of the level's (`ORG#<org>#ANALYTICS#<level>`), created by its first update (counters are added, never read-modified-written).
 * Its collection is a level's buckets in time order; a level's histogram items (below) sort right after each bucket's
 * item, so one range from a bucket's item to the last bucket's histogram item reads both.
 */
export const AnalyticsRollupEntity = defineEntity({
  name: "AnalyticsRollup",
  attributes: [],
  key: ({ organizationId, level, bucket }: Bucketed<"S" | "M" | "H" | "D" | "W">) =>
    analyticsKeys.analyticsRollup(organizationId, level, bucket),
  identity: ({ organizationId, level, bucket }: Bucketed<"S" | "M" | "H" | "D" | "W">) => ({
    organizationId,
    level,
    bucket,
  }),
  collection: {
    name: "byBucket",
    pk: (rollup: Bucketed<"S" | "M" | "H" | "D" | "W">) =>
      analyticsKeys.analyticsRollup(rollup.organizationId, rollup.level, "").pk,
    // Without a bucket, the level's prefix (`ANALYTICS#H#`).
    sk: (rollup: Bucketed<"S" | "M" | "H" | "D" | "W">) =>
      analyticsKeys.analyticsRollup(rollup.organizationId, rollup.level, rollup.bucket ?? "").sk,
  },
  indexes: {},
});

/**
 * The AnalyticsHistogram entity: the response-time histograms of one hour, day or week bucket, packed in `hist` and
 * rewritten whole under the optimistic version `hv` (core/analytics/rollups.ts).
 */
export const AnalyticsHistogramEntity = defineEntity({
  name: "AnalyticsHistogram",
  attributes: [],
  key: ({ organizationId, level, bucket }: Bucketed<"H" | "D" | "W">) =>
    analyticsKeys.analyticsHistogram(organizationId, level, bucket),
  identity: ({ organizationId, level, bucket }: Bucketed<"H" | "D" | "W">) => ({ organizationId, level, bucket }),
  indexes: {},
});

type PerLead = { organizationId: string; leadId: string };

/**
 * The AnalyticsEarlyResponse entity: the earliest response to a lead not counted yet (it does not store the lead:
 * its key does), kept until its LeadCreated counting picks it up or its TTL ends.
 */
export const AnalyticsEarlyResponseEntity = defineEntity({
  name: "AnalyticsEarlyResponse",
  attributes: [],
  key: ({ organizationId, leadId }: PerLead) => analyticsKeys.analyticsEarlyResponse(organizationId, leadId),
  identity: ({ organizationId, leadId }: PerLead) => ({ organizationId, leadId }),
  indexes: {},
});

type CountedEvent = { organizationId: string; eventId: string };

/**
 * The AnalyticsCounted entity: an event's count-once marker, put in the transaction that adds its counters on
 * condition it is new (it stores only its TTL: its key names the event).
 */
export const AnalyticsCountedEntity = defineEntity({
  name: "AnalyticsCounted",
  attributes: [],
  key: ({ organizationId, eventId }: CountedEvent) => analyticsKeys.analyticsCounted(organizationId, eventId),
  identity: ({ organizationId, eventId }: CountedEvent) => ({ organizationId, eventId }),
  indexes: {},
});

type CountedSubject = { organizationId: string; subject: string };

/**
 * The AnalyticsCountedSet entity: the count-once marker of a message's or call's events (`counted`, a string set of
 * event ids, and its TTL), updated in the transaction that adds their counters on condition none of them is in it yet.
 */
export const AnalyticsCountedSetEntity = defineEntity({
  name: "AnalyticsCountedSet",
  attributes: [],
  key: ({ organizationId, subject }: CountedSubject) => analyticsKeys.analyticsCountedSet(organizationId, subject),
  identity: ({ organizationId, subject }: CountedSubject) => ({ organizationId, subject }),
  indexes: {},
});

/**
 * The AnalyticsMilestones entity: the organization's first-time values (first delivery, first sourced lead) and from
 * when its minute and second rollups are complete, each set once (`if_not_exists`).
 */
export const AnalyticsMilestonesEntity = defineEntity({
  name: "AnalyticsMilestones",
  attributes: [],
  key: ({ organizationId }: { organizationId: string }) => analyticsKeys.analyticsMilestones(organizationId),
  identity: ({ organizationId }: { organizationId: string }) => ({ organizationId }),
  indexes: {},
});
