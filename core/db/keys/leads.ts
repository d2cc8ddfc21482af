import { org, ownPartition, type Key, type LeadClaim } from "#core/db/keys/shared";

/**
 * Keys of the items core/leads owns (docs/data-model.md). A lead's index keys are declared with its entity
 * (core/db/entities/leads.ts), which derives them on every write.
 */
export const leadsKeys = {
  /**
   * A lead in a partition of its own (issue 27: no partition carries an organization's intake rate); the
   * organization lists its leads from the write-sharded `byCreation` index (core/db/entities/leads.ts).
   */
  lead: (organizationId: string, leadId: string): Key => ({
    pk: `${org(organizationId)}#LEAD#${leadId}`,
    sk: `LEAD#${leadId}`,
  }),
  /**
   * Dedupe claims on a normalised natural key (conditional writes make them race-free), each in a partition of its
   * own keyed by the claim (issue 27).
   */
  leadClaim: (organizationId: string, claim: LeadClaim): Key => {
    const sk =
      "sourceId" in claim
        ? `LEADKEY#SOURCE#${claim.sourceId}#${claim.kind === "sellerLeadId" ? "SELLER" : "EXTERNAL"}#${claim.value}`
        : `LEADKEY#${claim.kind.toUpperCase()}#${claim.value}`;
    return ownPartition(organizationId, sk);
  },
};
