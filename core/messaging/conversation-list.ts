import type { Actor } from "#core/auth/actor";
import { ConversationEntity } from "#core/db/entities/messaging";
import { listPage, type IndexedPlan, type ListResource, type NormalizedQuery, listQuerySchema } from "#core/db/list";
import { toConversation, type Conversation } from "#core/messaging/conversations";
import { visibleQuery } from "#core/routing/visibility";
import type { Page, PagingQuery } from "#core/shared/paging";

// The inbox list (`POST /conversations/all/my`), apart from `Conversations`: every send, call and carrier callback
// finds or updates a conversation through that object, and the listing would otherwise come into all their bundles.

const listResource: ListResource<Conversation> = {
  name: "conversations",
  fields: {
    unread: { get: (c) => c.unread, kind: "boolean", filter: true },
    leadId: { get: (c) => c.leadId, kind: "string", filter: true },
    assignedUserId: { get: (c) => c.assignedUserId, kind: "string", filter: true },
    leadName: { get: (c) => c.leadName, kind: "string", search: true },
    contactPhoneNumber: { get: (c) => c.contactPhoneNumber, kind: "string", filter: true, search: true },
    phoneNumberId: { get: (c) => c.phoneNumberId, kind: "string", filter: true },
    lastMessagePreview: { get: (c) => c.lastMessagePreview, kind: "string", search: true },
    lastMessageAt: { get: (c) => c.lastMessageAt, kind: "date", sort: true, range: true },
    createdAt: { get: (c) => c.createdAt, kind: "date", sort: true, range: true },
  },
  defaultOrder: [{ field: "lastMessageAt", direction: "desc" }],
  idOf: (c) => c.id,
  fromItem: toConversation,
  // Every conversation, from their write-sharded creation index (each is in a partition of its own, issue 27).
  candidates: (organizationId) => ConversationEntity.query("byCreation", { organizationId }),
  orders: {
    createdAt: (organizationId, _context, forward) =>
      ConversationEntity.plan("byCreation", { organizationId }, { forward }),
    lastMessageAt: (organizationId, _context, forward) =>
      ConversationEntity.plan("byLastMessage", { organizationId }, { forward }),
  },
  /** The inbox (unread only, latest activity first or last) reads only unread conversations, from their index. */
  indexed: (organizationId, query) =>
    query.filters.length === 1 && !query.ranges.length && !query.search
      ? unreadInOrder(organizationId, query)
      : undefined,
  ordered: unreadInOrder,
};

export const ListConversationsSchema = listQuerySchema(listResource);

/** The unread conversations in lastMessageAt order, when the query filters on `unread: true` and sorts by that alone. */
function unreadInOrder(organizationId: string, query: NormalizedQuery): IndexedPlan | undefined {
  const [order, ...more] = query.order;
  const unreadOnly = query.filters.some((filter) => filter.field === "unread" && filter.value === true);
  if (!order || order.field !== "lastMessageAt" || more.length || !unreadOnly) return undefined;
  return ConversationEntity.plan("unread", { organizationId }, { forward: order.direction === "asc" });
}

/**
 * The inbox: `assignedUserId` filters by assignee (`mine`, `unassigned`, a user id), as on leads; an agent of an
 * organization whose agents see only their own leads lists only the conversations assigned to them.
 */
export async function conversationsPage(actor: Actor, query: PagingQuery): Promise<Page<Conversation>> {
  return listPage(listResource, actor.organizationId, await visibleQuery(actor, query));
}
