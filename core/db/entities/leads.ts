import { createHash } from "node:crypto";
import { defineEntity } from "#core/db/entity";
import { leadsKeys } from "#core/db/keys/leads";
import { decimalSortText, ordered, org, sortText, type LeadClaim } from "#core/db/keys/shared";
import type { Lead } from "#core/leads/schemas";

/** A stored lead: the lead, its organization, and when the pending sweep looks at it next (absent: its createdAt). */
export type StoredLead = Lead & { organizationId: string; sweepDueAt?: string | null };

/** Shards of the pending-lead sweep index. */
export const pendingShards = 8;

export function pendingShard(leadId: string): number {
  return createHash("sha256").update(leadId).digest()[0]! % pendingShards;
}

/** The name a lead is listed, searched and ordered by: first and last name. */
export function leadName(lead: Pick<Lead, "contact">): string {
  return [lead.contact?.firstName, lead.contact?.lastName].filter(Boolean).join(" ");
}

const leadKey = (id: string | undefined) => `LEAD#${id ?? ""}`;

/**
 * The Lead entity (docs/data-model.md): one item per lead under its organization, in the order of its ULID id
 * (createdAt order), and an entry per access pattern. Every writer goes through `put`/`update`, which derive these
 * keys, so no writer keeps an index in step by hand.
 */
export const LeadEntity = defineEntity({
  name: "Lead",
  attributes: [
    "id",
    "createdAt",
    "modifiedAt",
    "sourceId",
    "processingStatus",
    "processingReason",
    "duplicateOfLeadId",
    "processedAt",
    "assignedUserId",
    "assignedAt",
    "assignedBy",
    "metadata",
    "contact",
    "customer",
    "needsAttention",
    "offeredTo",
  ],
  key: ({ organizationId, id }: { organizationId: string; id: string }) => leadsKeys.lead(organizationId, id),
  identity: (lead: StoredLead) => ({ organizationId: lead.organizationId, id: lead.id }),
  /** The organization's leads, newest first when read backwards (ULID ids). */
  collection: {
    name: "byCreation",
    pk: (lead: StoredLead) => org(lead.organizationId),
    sk: (lead: StoredLead) => leadKey(lead.id),
  },
  indexes: {
    /** One source's leads, in creation order. */
    bySource: {
      index: "leadsBySource",
      pk: (lead: StoredLead) => `${org(lead.organizationId)}#SOURCE#${lead.sourceId}#LEADS`,
      sk: (lead: StoredLead) => leadKey(lead.id),
      composites: ["sourceId"],
      when: (lead: StoredLead) => Boolean(lead.sourceId),
    },
    /** The leads of one E.164 phone number (inbound messages and calls find their lead). */
    byPhone: {
      index: "leadsByPhone",
      pk: (lead: StoredLead) => `${org(lead.organizationId)}#LEADPHONE#${lead.contact?.phone?.number}`,
      sk: (lead: StoredLead) => leadKey(lead.id),
      composites: ["contact.phone"],
      when: (lead: StoredLead) => Boolean(lead.contact?.phone?.number),
    },
    /** The organization's leads by name (first and last name as the list shows it). */
    byName: {
      index: "sortedByField",
      pk: (lead: StoredLead) => `${org(lead.organizationId)}#LEADS#NAME`,
      sk: (lead: StoredLead) => ordered(sortText(leadName(lead)), lead.id),
      composites: ["contact.firstName", "contact.lastName"],
    },
    /** The organization's leads by metadata.price (decimalSortText). */
    byPrice: {
      index: "sortedByPrice",
      pk: (lead: StoredLead) => `${org(lead.organizationId)}#LEADS#PRICE`,
      sk: (lead: StoredLead) => ordered(decimalSortText(lead.metadata?.price), lead.id),
      composites: ["metadata.price"],
    },
    /** The organization's leads by modifiedAt (never modified first). */
    byModified: {
      index: "sortedByModifiedAt",
      pk: (lead: StoredLead) => `${org(lead.organizationId)}#LEADS#MODIFIED`,
      sk: (lead: StoredLead) => ordered(lead.modifiedAt ?? "", lead.id),
      composites: ["modifiedAt"],
    },
    /** The leads of one processing status, in creation order. */
    byStatus: {
      index: "leadsByProcessingStatus",
      pk: (lead: StoredLead) => `${org(lead.organizationId)}#LEADS#STATUS#${lead.processingStatus}`,
      sk: (lead: StoredLead) => leadKey(lead.id),
      composites: ["processingStatus"],
    },
    /**
     * Leads still Pending, for the sweep that republishes a lead whose queue message was lost. Not tenant data: an
     * operator index across organizations, sharded so no partition is hot; a query names the shard.
     */
    pending: {
      index: "dueWork",
      pk: (lead: StoredLead & { shard?: number }) => `PENDINGLEADS#${lead.shard ?? pendingShard(lead.id)}`,
      sk: (lead: StoredLead) => `${lead.sweepDueAt ?? lead.createdAt}#${lead.organizationId}#${lead.id}`,
      composites: ["processingStatus", "sweepDueAt"],
      when: (lead: StoredLead) => lead.processingStatus === "Pending",
    },
  },
});

/** A claim on a normalised natural key two leads can share (dedupe: conditional writes make it race-free). */
export type StoredLeadClaim = {
  organizationId: string;
  claim: LeadClaim;
  leadId: string;
  claimedAt: string;
  expiresAt?: number;
};

export const LeadClaimEntity = defineEntity({
  name: "LeadClaim",
  attributes: ["leadId", "claimedAt", "expiresAt"],
  key: ({ organizationId, claim }: { organizationId: string; claim: LeadClaim }) =>
    leadsKeys.leadClaim(organizationId, claim),
  identity: ({ organizationId, claim }: StoredLeadClaim) => ({ organizationId, claim }),
  indexes: {},
});
