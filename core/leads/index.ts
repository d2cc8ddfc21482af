import { leadCountingFacts } from "#core/leads/facts";
import { assignLeadFields } from "#core/leads/assign";
import { assignLead, routeLead } from "#core/leads/assignment";
import { mayRead, visibleQuery } from "#core/leads/visibility";
import { transact, TransactionConditionFailed } from "#core/db/transact";
import { indexOf } from "#core/db/indexes";
import { isConditionFailed, table } from "#core/db/items";
import { createHash } from "node:crypto";
import { decodeTime } from "ulid";
import type { Actor } from "#core/auth/actor";
import { createdWithin, entities, keys, type LeadClaim } from "#core/db/keys";
import { dateWindow, indexOrder, listPage, type IndexedPlan, type ListResource, type NormalizedQuery, listQuerySchema } from "#core/db/list";
import { ForbiddenError, NotFoundError, ValidationError } from "#core/errors";
import { processingStatuses, type Lead, type LeadWrite } from "#core/leads/schemas";
import { newId } from "#core/shared/ids";
import type { Page, PagingQuery } from "#core/shared/paging";
import { parsePhone } from "#core/shared/phone";
import { Sources } from "#core/sources/index";
import { countMetric, currentCorrelationId } from "#core/observability/index";

export * from "#core/leads/schemas";

/** Shards of the pending-lead sweep index (gsi3). */
export const pendingShards = 8;

export function pendingShard(leadId: string): number {
  return createHash("sha256").update(leadId).digest()[0]! % pendingShards;
}

const listResource: ListResource<Lead> = {
  name: "leads",
  fields: {
    sourceId: { get: (l) => l.sourceId, kind: "string", filter: true },
    processingStatus: { get: (l) => l.processingStatus, kind: "string", filter: true },
    vertical: { get: (l) => l.metadata.vertical, kind: "string", filter: true },
    product: { get: (l) => l.metadata.product, kind: "string", filter: true },
    complianceStatus: { get: (l) => l.metadata.complianceStatus, kind: "string", filter: true },
    "metadata.utmSource": { get: (l) => l.metadata.utmSource, kind: "string", filter: true },
    "metadata.utmCampaign": { get: (l) => l.metadata.utmCampaign, kind: "string", filter: true },
    "metadata.subId": { get: (l) => l.metadata.subId, kind: "string", filter: true },
    name: { get: leadName, kind: "string", search: true, sort: true },
    email: { get: (l) => l.contact.email, kind: "string", filter: true, search: true },
    phone: { get: (l) => l.contact.phone?.number, kind: "string", filter: true, search: true },
    assignedUserId: { get: (l) => l.assignedUserId, kind: "string", filter: true },
    createdAt: { get: (l) => l.createdAt, kind: "date", sort: true, range: true },
    modifiedAt: { get: (l) => l.modifiedAt, kind: "date", sort: true, range: true },
    price: { get: (l) => l.metadata.price, kind: "decimal", sort: true, range: true },
  },
  defaultOrder: [{ field: "createdAt", direction: "desc" }],
  idOf: (l) => l.id,
  fromItem: toLead,
  candidates: (organizationId) => {
    const { pk, skPrefix } = keys.leadPrefix(organizationId);
    return { KeyConditionExpression: "pk = :pk AND begins_with(sk, :prefix)", ExpressionAttributeValues: { ":pk": pk, ":prefix": skPrefix } };
  },
  /**
   * The common listings read only their page: newest (or oldest) first, of the
   * whole organization from the table, of one source from gsi1, or of one
   * processing status from gsi7.
   */
  indexed: (organizationId, query) => {
    const [filter, ...moreFilters] = query.filters;
    const plain = !filter || (!moreFilters.length && ((filter.field === "sourceId" && typeof filter.value === "string") || statusOf(query) !== undefined));
    return plain && !query.search && !query.ranges.length ? leadsInOrder(organizationId, query) : undefined;
  },
  /** Any other query in createdAt order reads the same keys in order, filtering as it goes. */
  ordered: leadsInOrder,
  /** The other sort fields each have an ordered-list index of the organization's leads. */
  orders: {
    name: indexOrder("sortedByField", keys.leadsByNamePartition),
    price: indexOrder("sortedByPrice", keys.leadsByPricePartition),
    modifiedAt: indexOrder("sortedByModifiedAt", keys.leadsByModifiedPartition),
  },
};

/** Body of the list operation: the paging query with this list's field names as enums. */
export const ListLeadsSchema = listQuerySchema(listResource);

/** The stored spelling of a processing status filter value (filters compare case-insensitively), if it is one. */
function statusOf(query: NormalizedQuery): string | undefined {
  const filter = query.filters.find((entry) => entry.field === "processingStatus" && typeof entry.value === "string");
  return processingStatuses.find((status) => status.toLowerCase() === String(filter?.value).toLowerCase());
}

/**
 * Leads in createdAt order, read from the sort key: lead ids are ULIDs of
 * `createdAt`, so key order is createdAt order with the id as tie-break, and
 * createdAt ranges become a key range. One source's leads come from gsi1
 * (source ids are ULIDs: upper case, as string filters compare case-insensitively),
 * one processing status's from gsi7 (a source and a status: gsi1, the status checked as read).
 */
function leadsInOrder(organizationId: string, query: NormalizedQuery): IndexedPlan | undefined {
  const [order, ...moreOrder] = query.order;
  if (!order || order.field !== "createdAt" || moreOrder.length) return undefined;
  const sourceFilter = query.filters.find((filter) => filter.field === "sourceId" && typeof filter.value === "string");
  const status = statusOf(query);
  const window = dateWindow(query.ranges, "createdAt");
  const bounds = (prefix: string) => {
    const { lower, upper } = createdWithin(prefix, window.from, window.to);
    return { ":lower": lower, ":upper": upper };
  };
  /** A createdAt-ordered index partition (gsi1 by source, gsi7 by status) over the same window. */
  const indexRange = (pattern: "leadsBySource" | "leadsByProcessingStatus", partition: string, prefix: string): IndexedPlan => {
    const index = indexOf(pattern);
    return {
      input: {
        index: pattern,
        KeyConditionExpression: `${index.pk} = :pk AND ${index.sk} BETWEEN :lower AND :upper`,
        ExpressionAttributeValues: { ":pk": partition, ...bounds(prefix) },
        ScanIndexForward: order.direction === "asc",
      },
      keyOf: (item) => ({ pk: item.pk, sk: item.sk, [index.pk]: item[index.pk], [index.sk]: item[index.sk] }),
    };
  };
  if (sourceFilter) {
    const bySource = keys.leadsBySource(organizationId, String(sourceFilter.value).toUpperCase());
    return indexRange("leadsBySource", bySource.gsi1pk, bySource.gsi1sk);
  }
  if (status) {
    const byStatus = keys.leadsByStatus(organizationId, status);
    return indexRange("leadsByProcessingStatus", byStatus.gsi7pk, byStatus.gsi7sk);
  }
  const { pk, skPrefix } = keys.leadPrefix(organizationId);
  return {
    input: {
      KeyConditionExpression: "pk = :pk AND sk BETWEEN :lower AND :upper",
      ExpressionAttributeValues: { ":pk": pk, ...bounds(skPrefix) },
      ScanIndexForward: order.direction === "asc",
    },
    keyOf: (item) => ({ pk: item.pk, sk: item.sk }),
  };
}

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
export const Leads = {
  /** The newest lead with this phone number, if any (leads by phone). */
  async idByPhone(organizationId: string, e164: string): Promise<string | undefined> {
    const key = keys.leadsByPhone(organizationId, e164);
    const { Items } = await table.query({
      index: "leadsByPhone",
      KeyConditionExpression: "gsi2pk = :pk AND begins_with(gsi2sk, :prefix)",
      ExpressionAttributeValues: { ":pk": key.gsi2pk, ":prefix": key.gsi2sk },
      ScanIndexForward: false,
      Limit: 1,
    });
    return Items?.[0]?.id as string | undefined;
  },

  countingFacts: leadCountingFacts,


  assignFields: (organizationId: string, lead: Lead, fields: Record<string, string | number | boolean | null>) => assignLeadFields(organizationId, lead, fields),

  /**
   * Stores a lead as Pending; the table's stream queues it for processing (the
   * intake outbox, core/leads/outbox.ts), so the answer means the lead is durably
   * stored and will be processed, after two round trips (limit, put). A repeat of a seller id
   * (SellerLeadId or ExternalId) from the same source returns the first lead;
   * the claim is a conditional write in the same transaction, so two concurrent
   * posts cannot both create one.
   */
  async intake(actor: Actor, input: Partial<LeadWrite>, context: IntakeContext): Promise<IntakeResult> {
    const stored = context.leadId ? await Leads.find(actor.organizationId, context.leadId) : undefined;
    if (stored) return { lead: stored, created: true };
    const sourceId = await sourceOf(actor, input.sourceId);
    // A source-key caller's source was read when its key was checked; others name theirs in the body.
    const source = !sourceId ? undefined : actor.source?.id === sourceId ? actor.source : await Sources.settings(actor.organizationId, sourceId);
    if (sourceId && !source) {
      throw new ValidationError("The lead names an unknown source.", [{ pointer: "/sourceId", detail: `No source ${sourceId} in this organization.` }]);
    }
    const lead = newLead(actor, input, source, context.leadId);
    const claims = sellerClaims(sourceId, lead);
    // The request's correlation id travels with the stored lead to the outbox that queues it.
    const correlationId = currentCorrelationId();
    // A Jornaya LeadiD token is kept beside the lead (not in its spec'd metadata) until processing files it as evidence.
    const jornayaLeadId = input.metadata?.jornayaLeadId;
    const item = { ...leadItem(actor.organizationId, lead), ...(correlationId ? { correlationId } : {}), ...(jornayaLeadId ? { jornayaLeadId } : {}) };
    try {
      if (claims.length === 0) {
        await table.put({ Item: item, ConditionExpression: "attribute_not_exists(pk)" });
      } else {
        await transact([
          { Put: { Item: item, ConditionExpression: "attribute_not_exists(pk)" } },
          ...claims.map((claim) => ({
            Put: {
              Item: { ...keys.leadClaim(actor.organizationId, claim), entity: entities.leadClaim, leadId: lead.id, claimedAt: lead.createdAt },
              ConditionExpression: "attribute_not_exists(pk)",
            },
          })),
        ]);
      }
    } catch (error) {
      // The first request with this key stored its lead meanwhile (it was not dead after all): that lead is the answer.
      const first = context.leadId && (isConditionFailed(error) || error instanceof TransactionConditionFailed) ? await Leads.find(actor.organizationId, context.leadId) : undefined;
      if (first) return { lead: first, created: true };
      const original = await originalOfRetry(actor.organizationId, claims, error);
      if (original) return { lead: original, created: false };
      throw error;
    }
    countMetric("LeadsReceived");
    // Its `lead.received` message is sent by the intake outbox when the stream shows the insert (core/leads/outbox.ts).
    return { lead, created: true };
  },

  async fromId(actor: Actor, leadId: string): Promise<Lead> {
    const lead = await Leads.find(actor.organizationId, leadId);
    if (!lead || !(await mayRead(actor, lead))) throw new NotFoundError("Lead", leadId);
    return lead;
  },

  /** A lead of the organization, read consistently; undefined when absent. */
  async find(organizationId: string, leadId: string): Promise<Lead | undefined> {
    const { Item } = await table.get({ Key: keys.lead(organizationId, leadId), ConsistentRead: true });
    return Item ? toLead(Item) : undefined;
  },

  async list(actor: Actor, query: PagingQuery): Promise<Page<Lead>> {
    return listPage(listResource, actor.organizationId, await visibleQuery(actor, query));
  },

  /** `PUT /leads/{id}/assignee`; `route` runs the routing rules on a processed lead (core/leads/assignment.ts). */
  assign: assignLead,
  route: routeLead,
};

/** A source key posts into its own source only; Bearer callers may name one of their sources. */
async function sourceOf(actor: Actor, requested: string | undefined): Promise<string | undefined> {
  if (actor.kind !== "source") return requested;
  if (requested && requested !== actor.sourceId) throw new ForbiddenError("A source key may only post leads into its own source.");
  return actor.sourceId;
}

function newLead(actor: Actor, input: Partial<LeadWrite>, source: Awaited<ReturnType<typeof Sources.settings>>, id = newId()): Lead {
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
        ? { line1: address.line1 ?? null, line2: address.line2 ?? null, city: address.city ?? null, state: address.state ?? null, postalCode: address.postalCode ?? null }
        : null,
      phone: phone ? { number: phone.e164, type: contact.phone?.type ?? null, countryCode: phone.country ?? null } : null,
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
  for (const [index, claim] of claims.entries()) {
    if (!error.failedIndexes.includes(index + 1)) continue;
    const { Item } = await table.get({ Key: keys.leadClaim(organizationId, claim), ConsistentRead: true });
    const original = Item ? await Leads.find(organizationId, Item.leadId as string) : undefined;
    if (original) return original;
  }
  return undefined;
}

/** The name a lead is listed, searched and ordered by: first and last name. */
function leadName(lead: Pick<Lead, "contact">): string {
  return [lead.contact.firstName, lead.contact.lastName].filter(Boolean).join(" ");
}

/**
 * The SET clauses (values added to `values`) that keep a lead's ordered-list
 * index keys exact in an update that writes modifiedAt and maybe the name
 * (`assignments` by path, as an UpdateLead action writes them).
 */
export function leadOrderSets(
  organizationId: string,
  lead: Lead,
  assignments: ReadonlyMap<string, unknown>,
  modifiedAt: string,
  values: Record<string, unknown>,
): string[] {
  values[":modifiedAt"] = modifiedAt;
  values[":modifiedOrder"] = keys.leadsByModified(organizationId, modifiedAt, lead.id).gsi6sk;
  const sets = ["modifiedAt = :modifiedAt", "gsi6sk = :modifiedOrder"];
  if (assignments.has("contact.firstName") || assignments.has("contact.lastName")) {
    const named = (field: "firstName" | "lastName") => (assignments.has(`contact.${field}`) ? (assignments.get(`contact.${field}`) as string | null) : lead.contact[field]);
    values[":nameOrder"] = keys.leadsByName(organizationId, leadName({ contact: { ...lead.contact, firstName: named("firstName"), lastName: named("lastName") } }), lead.id).gsi4sk;
    sets.push("gsi4sk = :nameOrder");
  }
  return sets;
}

/**
 * The stored item: the lead plus its index keys (by source, by phone, pending
 * sweep, and the ordered lists: by name, price, modifiedAt and processing status).
 */
export function leadItem(organizationId: string, lead: Lead): Record<string, unknown> {
  return {
    ...keys.lead(organizationId, lead.id),
    ...keys.leadsByName(organizationId, leadName(lead), lead.id),
    ...keys.leadsByPrice(organizationId, lead.metadata.price, lead.id),
    ...keys.leadsByModified(organizationId, lead.modifiedAt, lead.id),
    ...keys.leadsByStatus(organizationId, lead.processingStatus, lead.id),
    ...(lead.sourceId ? keys.leadsBySource(organizationId, lead.sourceId, lead.id) : {}),
    ...(lead.contact.phone ? keys.leadsByPhone(organizationId, lead.contact.phone.number, lead.id) : {}),
    ...(lead.processingStatus === "Pending" ? keys.pendingLead(pendingShard(lead.id), lead.createdAt, organizationId, lead.id) : {}),
    entity: entities.lead,
    organizationId,
    ...lead,
  };
}

const leadFields = ["id", "createdAt", "modifiedAt", "sourceId", "processingStatus", "processingReason", "duplicateOfLeadId", "processedAt", "assignedUserId", "assignedAt", "assignedBy", "metadata", "contact", "customer"] as const;

export function toLead(item: Record<string, unknown>): Lead {
  return { ...Object.fromEntries(leadFields.map((field) => [field, item[field] ?? null])), needsAttention: item.needsAttention === true } as unknown as Lead;
}
