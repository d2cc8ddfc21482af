import * as v from "valibot";
import type { Actor } from "#core/auth/actor";
import { createdWithin } from "#core/db/keys";
import { EventEntity } from "#core/db/entities/events";
import { dateWindow, listPage, type ListResource, listQuerySchema } from "#core/db/list";
import { ValidationError } from "#core/errors";
import { toEventRecord, type EventRecord } from "#core/events/index";
import { visibleQuery } from "#core/routing/visibility";
import { type Page, type PagingQuery } from "#core/shared/paging";

const iso = v.pipe(v.string(), v.isoTimestamp("Must be an ISO 8601 date-time, e.g. 2026-01-01T00:00:00Z."));
const id = v.pipe(v.string(), v.minLength(1), v.maxLength(64));

/**
 * Query parameters of `POST /events/all/my` (endpoint 13): `eventCategory`,
 * `startAt` (inclusive) and `endAt` (exclusive) on the event's `createdAt`,
 * plus `leadId`, `conversationId` and `eventType`. All optional.
 */
export const ListEventsQuerySchema = v.object({
  eventCategory: v.optional(v.pipe(v.string(), v.maxLength(64))),
  eventType: v.optional(v.pipe(v.string(), v.maxLength(64))),
  startAt: v.optional(iso),
  endAt: v.optional(iso),
  leadId: v.optional(id),
  conversationId: v.optional(id),
});
export type ListEventsQuery = v.InferOutput<typeof ListEventsQuerySchema>;

const filterable = ["eventCategory", "eventType", "leadId", "conversationId"] as const;

const listResource: ListResource<EventRecord> = {
  name: "events",
  fields: {
    eventType: { get: (e) => e.eventType, kind: "string", filter: true, search: true },
    eventCategory: { get: (e) => e.eventCategory, kind: "string", filter: true },
    timelineCategory: { get: (e) => e.timelineCategory, kind: "string", filter: true },
    status: { get: (e) => e.status, kind: "string", filter: true },
    direction: { get: (e) => e.direction, kind: "string", filter: true },
    leadId: { get: (e) => e.leadId, kind: "string", filter: true },
    conversationId: { get: (e) => e.conversationId, kind: "string", filter: true },
    assignedUserId: { get: (e) => e.assignedUserId, kind: "string", filter: true },
    relatedEntityId: { get: (e) => e.relatedEntityId, kind: "string", filter: true },
    description: { get: (e) => e.description, kind: "string", search: true },
    summary: { get: (e) => e.summary, kind: "string", search: true },
    createdAt: { get: (e) => e.createdAt, kind: "date", sort: true, range: true },
  },
  defaultOrder: [{ field: "createdAt", direction: "desc" }],
  idOf: (e) => e.id,
  fromItem: toEventRecord,
  candidates: (organizationId, context) => plan(organizationId, context as ListEventsQuery).input,
  indexed: (organizationId, query, context) => {
    const plain =
      query.filters.length === 0 &&
      query.ranges.length === 0 &&
      !query.search &&
      query.order.length === 1 &&
      query.order[0]!.field === "createdAt" &&
      query.order[0]!.direction === "desc";
    return plain ? plan(organizationId, context as ListEventsQuery) : undefined;
  },
  /** Any other query in createdAt order reads the same range in order, filtering as it goes. */
  ordered: (organizationId, query, context) => {
    const [order, ...moreOrder] = query.order;
    if (!order || order.field !== "createdAt" || moreOrder.length) return undefined;
    const typeFilter = query.filters.find((filter) => filter.field === "eventType" && typeof filter.value === "string");
    const narrowed = {
      ...(context as ListEventsQuery),
      indexedType: typeFilter ? String(typeFilter.value) : undefined,
    };
    return plan(organizationId, narrowed, order.direction === "asc", dateWindow(query.ranges, "createdAt"));
  },
};

export const ListEventsSchema = listQuerySchema(listResource);

/**
 * The organization's events newest (or oldest) first. Event ids are ULIDs of
 * `createdAt`, so the time window (the query's `startAt`/`endAt`, narrowed by a
 * body `createdAt` range) is a sort-key range (`EVENT#<ulid(startAt)>` ≤ sk < `EVENT#<ulid(endAt)>`) of the
 * organization's write-sharded creation index (gsi8, its shards read merged); one lead's events come from gsi1, one
 * type's from gsi7 (sharded too); the other narrowings are checked in memory on the events read from the table (the
 * indexes hold only keys). A plain query (no body filters, default order) reads only its page.
 */
function plan(
  organizationId: string,
  query: ListEventsQuery & { indexedType?: string },
  forward = false,
  window = dateWindow([], "createdAt"),
) {
  const from = Math.max(window.from, query.startAt ? Date.parse(query.startAt) : 0);
  const to = Math.min(window.to, query.endAt ? Date.parse(query.endAt) - 1 : window.to);
  // One type's events come from their type's index (the type lower-cased there; an exact `eventType` parameter still filters below).
  const type = query.eventType ?? query.indexedType;
  const pattern = query.leadId ? "byLead" : type !== undefined ? "byType" : "byCreation";
  const { lower, upper } = createdWithin(EventEntity.sortKey(pattern, {}), from, to);
  const wanted: [string, unknown][] = [];
  for (const field of filterable) {
    const value = query[field];
    if (value === undefined || (field === "leadId" && pattern === "byLead")) continue;
    wanted.push([field, value]);
  }
  // The indexes hold only keys (stacks/definitions.ts): their events are checked in memory once read from the table.
  const narrowing =
    wanted.length === 0
      ? {}
      : { where: (item: Record<string, unknown>) => wanted.every(([field, value]) => item[field] === value) };
  const composites = {
    organizationId,
    ...(query.leadId ? { leadId: query.leadId } : {}),
    ...(type !== undefined ? { eventType: type } : {}),
  };
  return EventEntity.plan(pattern, composites, { range: { between: [lower, upper] }, forward, ...narrowing });
}

/**
 * The events of the caller's organization; `assignedUserId` filters by owner (`mine`, `unassigned`, a user id), and
 * `theirsOnly` holds the caller to the events written for them (core/messaging/event-list.ts decides it).
 */
export async function listEvents(
  actor: Actor,
  query: ListEventsQuery,
  paging: PagingQuery,
  theirsOnly: boolean,
): Promise<Page<EventRecord>> {
  if (query.startAt && query.endAt && Date.parse(query.startAt) >= Date.parse(query.endAt)) {
    throw new ValidationError("endAt must be after startAt.", [
      { in: "query", field: "endAt", detail: "endAt (exclusive) must be later than startAt (inclusive)." },
    ]);
  }
  return listPage(listResource, actor.organizationId, await visibleQuery(actor, paging, theirsOnly), query);
}
