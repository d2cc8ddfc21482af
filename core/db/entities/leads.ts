import { createHash } from "node:crypto";
import { defineEntity } from "#core/db/entity";
import { leadsKeys } from "#core/db/keys/leads";
import { decimalSortText, ordered, org, sortText, type LeadClaim } from "#core/db/keys/shared";
import type { Lead } from "#core/leads/schemas";

/**
 * A stored lead: the lead, its organization, and when the pending sweep looks at it next (absent: its createdAt).
 * `reverifyDueAt` is not stored: it is when its consent is verified again, which only its `reverify` entry holds.
 */
export type StoredLead = Lead & { organizationId: string; sweepDueAt?: string | null; reverifyDueAt?: string };

/**
 * Shards of the pending-lead sweep index, shared by every organization: ~0.6 write units per lead there, so 1,837
 * leads/s (the busiest organization and 1,000 others at 1%) is ~580 per shard with 16 (issue 27; docs/scale.md).
 */
export const pendingShards = 16;

export function pendingShard(leadId: string): number {
  return createHash("sha256").update(leadId).digest()[0]! % pendingShards;
}

/** The name a lead is listed, searched and ordered by: first and last name. */
export function leadName(lead: Pick<Lead, "contact">): string {
  return [lead.contact?.firstName, lead.contact?.lastName].filter(Boolean).join(" ");
}

const leadKey = (id: string | undefined) => `LEAD#${id ?? ""}`;

/**
 * Shards of each organization-level lead listing (issue 27): at 167 leads/s for one organization, the busiest
 * listing (by modifiedAt, moved on every update) takes about 420 write units/s per shard with eight (docs/scale.md),
 * and a page reads eight partitions in parallel.
 */
export const leadListShards = 8;
const sharded = { count: leadListShards, by: (lead: StoredLead) => lead.id };

/**
 * The Lead entity (docs/data-model.md): one item per lead in a partition of its own (`ORG#o#LEAD#<id>`), and an
 * entry per access pattern; the organization-level ones are write-sharded by the lead id and read merged. Every
 * writer goes through `put`/`update`, which derive these keys, so no writer keeps an index in step by hand.
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
  indexes: {
    /** The organization's leads in creation order (ULID ids), newest first when read backwards. */
    byCreation: {
      index: "leadsByCreation",
      pk: (lead: StoredLead, shard: number) => `${org(lead.organizationId)}#LEADS#${shard}`,
      sk: (lead: StoredLead) => leadKey(lead.id),
      composites: [],
      shards: sharded,
    },
    /** One source's leads, in creation order (one seller may carry the organization's whole rate). */
    bySource: {
      index: "leadsBySource",
      pk: (lead: StoredLead, shard: number) => `${org(lead.organizationId)}#SOURCE#${lead.sourceId}#LEADS#${shard}`,
      sk: (lead: StoredLead) => leadKey(lead.id),
      composites: ["sourceId"],
      when: (lead: StoredLead) => Boolean(lead.sourceId),
      shards: sharded,
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
      pk: (lead: StoredLead, shard: number) => `${org(lead.organizationId)}#LEADS#NAME#${shard}`,
      sk: (lead: StoredLead) => ordered(sortText(leadName(lead)), lead.id),
      composites: ["contact.firstName", "contact.lastName"],
      shards: sharded,
    },
    /** The organization's leads by metadata.price (decimalSortText). */
    byPrice: {
      index: "sortedByPrice",
      pk: (lead: StoredLead, shard: number) => `${org(lead.organizationId)}#LEADS#PRICE#${shard}`,
      sk: (lead: StoredLead) => ordered(decimalSortText(lead.metadata?.price), lead.id),
      composites: ["metadata.price"],
      shards: sharded,
    },
    /** The organization's leads by modifiedAt (never modified first). */
    byModified: {
      index: "sortedByModifiedAt",
      pk: (lead: StoredLead, shard: number) => `${org(lead.organizationId)}#LEADS#MODIFIED#${shard}`,
      sk: (lead: StoredLead) => ordered(lead.modifiedAt ?? "", lead.id),
      composites: ["modifiedAt"],
      shards: sharded,
    },
    /** The leads of one processing status, in creation order. */
    byStatus: {
      index: "leadsByProcessingStatus",
      pk: (lead: StoredLead, shard: number) =>
        `${org(lead.organizationId)}#LEADS#STATUS#${lead.processingStatus}#${shard}`,
      sk: (lead: StoredLead) => leadKey(lead.id),
      composites: ["processingStatus"],
      shards: sharded,
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
    /**
     * Processed leads whose consent could not be verified because the certificate API was down, by when to try
     * again (core/leads/reverify.ts): the same index keys the pending entry held, given by the update that leaves
     * Pending (explicit: the record holds no due time), moved by each attempt, removed once settled.
     */
    reverify: {
      index: "dueWork",
      pk: (lead: StoredLead & { shard?: number }) => `REVERIFYLEADS#${lead.shard ?? pendingShard(lead.id)}`,
      sk: (lead: StoredLead) => `${lead.reverifyDueAt}#${lead.organizationId}#${lead.id}`,
      composites: [],
      explicit: true,
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
