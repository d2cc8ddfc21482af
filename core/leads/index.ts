import { leadCountingFacts } from "#core/leads/facts";
import { assignLeadFields } from "#core/leads/assign";
import { assignLead, routeLead } from "#core/leads/assignment";
import { transact, Transaction, TransactionConditionFailed } from "#core/db/transact";
import { isConditionFailed, table } from "#core/db/items";
import { LeadClaimEntity, LeadEntity, leadName, pendingShard, pendingShards } from "#core/db/entities/leads";
import { decodeTime } from "ulid";
import type { Actor } from "#core/auth/actor";
import type { LeadClaim } from "#core/db/keys";
import { ForbiddenError, ValidationError } from "#core/errors";
import type { Lead, LeadWrite } from "#core/leads/schemas";
import { newId } from "#core/shared/ids";
import { parsePhone } from "#core/shared/phone";
import * as Sources from "#core/sources/index";
import { currentCorrelationId } from "#core/observability/index";
import { countMetric } from "#core/observability/metrics";
import * as LeadReads from "#core/leads/reads";

// The reads, for a caller that also writes (`Leads.find`); one that only reads imports core/leads/reads.
export { idByPhone, fromId, itemRead, find } from "#core/leads/reads";

export * from "#core/leads/schemas";
export { toLead } from "#core/leads/reads";
export { ListLeadsSchema } from "#core/leads/list";

export { pendingShard, pendingShards };

/** How a lead arrived: the intake routes, or `POST /leads`. */
export interface IntakeContext {
  channel: "Intake" | "Api";
  /**
   * The new lead's id, fixed by the request's Idempotency-Key: when a lead with it is stored already (the first
   * request died before answering), that lead is the answer and nothing is written.
   */
  leadId?: string;
}

export interface IntakeResult {
  lead: Lead;
  /** False when a seller's retry (same SellerLeadId/ExternalId from the same source) matched an earlier lead. */
  created: boolean;
}

/** Leads of an organization: intake, reads and listing. Processing lives in core/leads/processing. */

export { leadCountingFacts as countingFacts };

export const assignFields = (
  organizationId: string,
  lead: Lead,
  fields: Record<string, string | number | boolean | null>,
) => assignLeadFields(organizationId, lead, fields);

/**
 * Stores a lead as Pending; the table's stream queues it for processing (the
 * intake outbox, core/leads/outbox.ts), so the answer means the lead is durably
 * stored and will be processed, after two round trips (limit, put). A repeat of a seller id
 * (SellerLeadId or ExternalId) from the same source returns the first lead;
 * the claim is a conditional write in the same transaction, so two concurrent
 * posts cannot both create one.
 */
export async function intake(actor: Actor, input: Partial<LeadWrite>, context: IntakeContext): Promise<IntakeResult> {
  const stored = context.leadId ? await LeadReads.find(actor.organizationId, context.leadId) : undefined;
  if (stored) return { lead: stored, created: true };
  const sourceId = await sourceOf(actor, input.sourceId);
  // A source-key caller's source was read when its key was checked; others name theirs in the body.
  const source = !sourceId
    ? undefined
    : actor.source?.id === sourceId
      ? actor.source
      : await Sources.settings(actor.organizationId, sourceId);
  if (sourceId && !source) {
    throw new ValidationError("The lead names an unknown source.", [
      { pointer: "/sourceId", detail: `No source ${sourceId} in this organization.` },
    ]);
  }
  const lead = newLead(actor, input, source, context.leadId);
  const claims = sellerClaims(sourceId, lead);
  // The request's correlation id travels with the stored lead to the outbox that queues it.
  const correlationId = currentCorrelationId();
  // A Jornaya LeadiD token is kept beside the lead (not in its spec'd metadata) until processing files it as evidence.
  const jornayaLeadId = input.metadata?.jornayaLeadId;
  const put = LeadEntity.create(
    { ...lead, organizationId: actor.organizationId },
    {
      // Its source's consent policy governs sends from the moment it is stored, not from processing: a text to a
      // lead still Pending is refused like one to a processed lead without consent (processing writes it again).
      consentPolicy: source?.consentPolicy ?? "allow",
      ...(correlationId ? { correlationId } : {}),
      ...(jornayaLeadId ? { jornayaLeadId } : {}),
    },
  );
  try {
    if (claims.length === 0) {
      await table.put(put);
    } else {
      const transaction = new Transaction().put("lead", put);
      for (const claim of claims) {
        transaction.put(
          claimPart(claim),
          LeadClaimEntity.create({
            organizationId: actor.organizationId,
            claim,
            leadId: lead.id,
            claimedAt: lead.createdAt,
          }),
        );
      }
      await transact(transaction);
    }
  } catch (error) {
    // The first request with this key stored its lead meanwhile (it was not dead after all): that lead is the answer.
    const first =
      context.leadId && (isConditionFailed(error) || error instanceof TransactionConditionFailed)
        ? await LeadReads.find(actor.organizationId, context.leadId)
        : undefined;
    if (first) return { lead: first, created: true };
    const original = await originalOfRetry(actor.organizationId, claims, error);
    if (original) return { lead: original, created: false };
    throw error;
  }
  countMetric("LeadsReceived");
  // Its `lead.received` message is sent by the intake outbox when the stream shows the insert (core/leads/outbox.ts).
  return { lead, created: true };
}

/** `PUT /leads/{id}/assignee`; `route` runs the routing rules on a processed lead (core/leads/assignment.ts). */
export { assignLead as assign };

export { routeLead as route };

/** A source key posts into its own source only; Bearer callers may name one of their sources. */
async function sourceOf(actor: Actor, requested: string | undefined): Promise<string | undefined> {
  if (actor.kind !== "source") return requested;
  if (requested && requested !== actor.sourceId)
    throw new ForbiddenError("A source key may only post leads into its own source.");
  return actor.sourceId;
}

function newLead(
  actor: Actor,
  input: Partial<LeadWrite>,
  source: Awaited<ReturnType<typeof Sources.settings>>,
  id = newId(),
): Lead {
  const createdAt = new Date(decodeTime(id)).toISOString();
  const { contact = {}, customer = {}, metadata = {} } = input;
  const phone = contact.phone?.number ? parsePhone(contact.phone.number) : undefined;
  const address = contact.streetAddress;
  return {
    id,
    createdAt,
    modifiedAt: null,
    sourceId: source?.id ?? null,
    processingStatus: "Pending",
    processingReason: null,
    duplicateOfLeadId: null,
    processedAt: null,
    assignedUserId: null,
    assignedAt: null,
    assignedBy: null,
    needsAttention: false,
    offeredTo: [],
    metadata: {
      certifiedFormUrl: metadata.certifiedFormUrl ?? null,
      utmSource: metadata.utmSource ?? null,
      utmMedium: metadata.utmMedium ?? null,
      utmCampaign: metadata.utmCampaign ?? null,
      utmTerm: metadata.utmTerm ?? null,
      utmContent: metadata.utmContent ?? null,
      referrer: metadata.referrer ?? null,
      landingPage: metadata.landingPage ?? null,
      subId: metadata.subId ?? null,
      pubId: metadata.pubId ?? null,
      ipAddress: metadata.ipAddress ?? null,
      userAgent: metadata.userAgent ?? null,
      externalId: metadata.externalId ?? null,
      sellerLeadId: metadata.sellerLeadId ?? null,
      createdAt,
      price: metadata.price ?? source?.defaultPrice ?? null,
      directPostPrice: metadata.directPostPrice ?? null,
      product: metadata.product ?? source?.product ?? null,
      vertical: metadata.vertical ?? source?.vertical ?? null,
      complianceStatus: null,
      complianceBlockedReason: null,
      sourceMetadata: metadata.sourceMetadata ?? null,
      assignedPhoneNumberId: null,
      smsConsentStatus: null,
      smsOptedOut: false,
      smsOptOutAt: null,
      smsOptInAt: null,
      smsHelpRequestedAt: null,
      smsConsentPhoneNumber: null,
      userId: actor.userId ?? null,
      businessId: actor.organizationId,
    },
    contact: {
      firstName: contact.firstName ?? null,
      lastName: contact.lastName ?? null,
      streetAddress: address
        ? {
            line1: address.line1 ?? null,
            line2: address.line2 ?? null,
            city: address.city ?? null,
            state: address.state ?? null,
            postalCode: address.postalCode ?? null,
          }
        : null,
      phone: phone
        ? { number: phone.e164, type: contact.phone?.type ?? null, countryCode: phone.country ?? null }
        : null,
      email: contact.email ?? null,
    },
    customer: {
      gender: customer.gender?.value ? { value: customer.gender.value } : null,
      height: customer.height ?? null,
      weight: customer.weight ?? null,
      income: customer.income ?? null,
      monthsAtResidence: customer.monthsAtResidence ?? null,
      creditScore: customer.creditScore ?? null,
      numberOfDependents: customer.numberOfDependents ?? null,
      birthDate: customer.birthDate ?? null,
      maritalStatus: customer.maritalStatus?.value ? { value: customer.maritalStatus.value } : null,
      isHomeowner: customer.isHomeowner ?? null,
      hasBankruptcy: customer.hasBankruptcy ?? null,
      hasMedicalCondition: customer.hasMedicalCondition ?? null,
      employmentType: customer.employmentType?.value ? { value: customer.employmentType.value } : null,
    },
  };
}

/** The transaction part of a dedupe claim: its kind (a lead holds at most one claim of each). */
export const claimPart = (claim: LeadClaim) => `claim:${claim.kind}`;

function sellerClaims(sourceId: string | undefined, lead: Lead): LeadClaim[] {
  if (!sourceId) return [];
  const claims: LeadClaim[] = [];
  if (lead.metadata.sellerLeadId) claims.push({ kind: "sellerLeadId", sourceId, value: lead.metadata.sellerLeadId });
  if (lead.metadata.externalId) claims.push({ kind: "externalId", sourceId, value: lead.metadata.externalId });
  return claims;
}

/** When the transaction failed on a seller-id claim, the lead that holds it (the seller's first post). */
async function originalOfRetry(organizationId: string, claims: LeadClaim[], error: unknown): Promise<Lead | undefined> {
  if (!(error instanceof TransactionConditionFailed)) return undefined;
  for (const claim of claims) {
    if (!error.failed(claimPart(claim))) continue;
    const Item = await LeadClaimEntity.get({ organizationId, claim }, { consistent: true });
    const original = Item ? await LeadReads.find(organizationId, Item.leadId as string) : undefined;
    if (original) return original;
  }
  return undefined;
}

export { leadName };

/** The stored item of a lead, every index key derived by its entity (tests and the operator's backfill store leads with it). */
export function leadItem(organizationId: string, lead: Lead): Record<string, unknown> {
  return LeadEntity.item({ ...lead, organizationId });
}
