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
