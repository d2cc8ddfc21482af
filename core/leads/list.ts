import type { Actor } from "#core/auth/actor";
import { LeadEntity, leadName, type StoredLead } from "#core/db/entities/leads";
import { createdWithin } from "#core/db/keys";
import {
  dateWindow,
  listPage,
  type IndexedPlan,
  type ListResource,
  type NormalizedQuery,
  listQuerySchema,
} from "#core/db/list";
import { toLead } from "#core/leads/reads";
import { processingStatuses, type Lead } from "#core/leads/schemas";
import { visibleQuery } from "#core/routing/visibility";
import type { Page, PagingQuery } from "#core/shared/paging";

// The list of leads (`POST /leads/all/my`, the agent's lead skills), apart from `LeadReads`: every sender, call and
// automation reads a lead through `LeadReads`, and the listing (its query schema, index plans and list engine) would
// otherwise come into all their bundles.

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
  candidates: (organizationId) =>
    LeadEntity.query("byCreation", { organizationId }, { range: { beginsWith: LeadEntity.sortKey("byCreation", {}) } }),
  /**
   * The common listings read only their page: newest (or oldest) first, of the
   * whole organization from its sharded creation index (gsi8), of one source from gsi1, or of one
   * processing status from gsi7 (each write-sharded, its shards read merged).
   */
  indexed: (organizationId, query) => {
    const [filter, ...moreFilters] = query.filters;
    const plain =
      !filter ||
      (!moreFilters.length &&
        ((filter.field === "sourceId" && typeof filter.value === "string") || statusOf(query) !== undefined));
    return plain && !query.search && !query.ranges.length ? leadsInOrder(organizationId, query) : undefined;
  },
  /** Any other query in createdAt order reads the same keys in order, filtering as it goes. */
  ordered: leadsInOrder,
  /** The other sort fields each have an ordered-list index of the organization's leads. */
  orders: {
    name: (organizationId, _context, forward) => LeadEntity.plan("byName", { organizationId }, { forward }),
    price: (organizationId, _context, forward) => LeadEntity.plan("byPrice", { organizationId }, { forward }),
    modifiedAt: (organizationId, _context, forward) => LeadEntity.plan("byModified", { organizationId }, { forward }),
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
  /** One createdAt-ordered pattern (the organization's leads, one source's, one status's) over the window. */
  const inWindow = (pattern: "byCreation" | "bySource" | "byStatus", composites: Partial<StoredLead>): IndexedPlan => {
    const { lower, upper } = createdWithin(LeadEntity.sortKey(pattern, composites), window.from, window.to);
    return LeadEntity.plan(
      pattern,
      { organizationId, ...composites },
      { range: { between: [lower, upper] }, forward: order.direction === "asc" },
    );
  };
  if (sourceFilter) return inWindow("bySource", { sourceId: String(sourceFilter.value).toUpperCase() });
  if (status) return inWindow("byStatus", { processingStatus: status as StoredLead["processingStatus"] });
  return inWindow("byCreation", {});
}

/** A page of the organization's leads the actor may see (`POST /leads/all/my`). */
export async function leadsPage(actor: Actor, query: PagingQuery): Promise<Page<Lead>> {
  return listPage(listResource, actor.organizationId, await visibleQuery(actor, query));
}
