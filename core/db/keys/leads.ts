import { org, ordered, sortText, decimalSortText, type Key, type LeadClaim } from "#core/db/keys/shared";

/** Keys of the items core/leads owns (docs/data-model.md). */
export const leadsKeys = {
  /** Leads: the sort key is the ULID, so the partition read backwards is newest first. */
  lead: (organizationId: string, leadId: string): Key => ({ pk: org(organizationId), sk: `LEAD#${leadId}` }),
  leadPrefix: (organizationId: string) => ({ pk: org(organizationId), skPrefix: "LEAD#" }),
  /** gsi1: one source's leads, newest first. */
  leadsBySource: (organizationId: string, sourceId: string, leadId = "") => ({
    gsi1pk: `${org(organizationId)}#SOURCE#${sourceId}#LEADS`,
    gsi1sk: `LEAD#${leadId}`,
  }),
  /** gsi2: the leads of one E.164 phone number (inbound messages and calls find their lead). */
  leadsByPhone: (organizationId: string, e164: string, leadId = "") => ({
    gsi2pk: `${org(organizationId)}#LEADPHONE#${e164}`,
    gsi2sk: `LEAD#${leadId}`,
  }),
  /** gsi4: the organization's leads by name (first and last name as the list shows it). */
  leadsByName: (organizationId: string, name: string, leadId: string) => ({
    gsi4pk: `${org(organizationId)}#LEADS#NAME`,
    gsi4sk: ordered(sortText(name), leadId),
  }),
  leadsByNamePartition: (organizationId: string) => ({ gsi4pk: `${org(organizationId)}#LEADS#NAME` }),
  /** gsi5: the organization's leads by metadata.price (decimalSortText). */
  leadsByPrice: (organizationId: string, price: string | number | null, leadId: string) => ({
    gsi5pk: `${org(organizationId)}#LEADS#PRICE`,
    gsi5sk: ordered(decimalSortText(price), leadId),
  }),
  leadsByPricePartition: (organizationId: string) => ({ gsi5pk: `${org(organizationId)}#LEADS#PRICE` }),
  /** gsi6: the organization's leads by modifiedAt (never modified first). */
  leadsByModified: (organizationId: string, modifiedAt: string | null, leadId: string) => ({
    gsi6pk: `${org(organizationId)}#LEADS#MODIFIED`,
    gsi6sk: ordered(modifiedAt ?? "", leadId),
  }),
  leadsByModifiedPartition: (organizationId: string) => ({ gsi6pk: `${org(organizationId)}#LEADS#MODIFIED` }),
  /** gsi7: the leads of one processing status, in createdAt order (ULID ids). */
  leadsByStatus: (organizationId: string, processingStatus: string, leadId = "") => ({
    gsi7pk: `${org(organizationId)}#LEADS#STATUS#${processingStatus}`,
    gsi7sk: `LEAD#${leadId}`,
  }),
  /**
   * gsi3 (sparse): leads still Pending, for the sweep that republishes a lead whose
   * queue message was lost. Not tenant data: an operator index across organizations,
   * sharded so no partition is hot; the attributes are removed once the lead is settled.
   */
  pendingLead: (shard: number, createdAt: string, organizationId: string, leadId: string) => ({
    gsi3pk: `PENDINGLEADS#${shard}`,
    gsi3sk: `${createdAt}#${organizationId}#${leadId}`,
  }),
  /**
   * gsi3 (sparse): processed leads whose consent could not be verified because the certificate API was down, by when
   * to try again (core/leads/reverify.ts). Not tenant data, sharded like pending leads; removed once settled.
   */
  reverifyLead: (shard: number, dueAt: string, organizationId: string, leadId: string) => ({
    gsi3pk: `REVERIFYLEADS#${shard}`,
    gsi3sk: `${dueAt}#${organizationId}#${leadId}`,
  }),
  /** Dedupe claims on a normalised natural key (conditional writes make them race-free). */
  leadClaim: (organizationId: string, claim: LeadClaim): Key => ({
    pk: org(organizationId),
    sk:
      "sourceId" in claim
        ? `LEADKEY#SOURCE#${claim.sourceId}#${claim.kind === "sellerLeadId" ? "SELLER" : "EXTERNAL"}#${claim.value}`
        : `LEADKEY#${claim.kind.toUpperCase()}#${claim.value}`,
  }),
};
