import type { Actor } from "#core/auth/actor";
import { listEvents, type ListEventsQuery } from "#core/events/list";
import * as LeadReads from "#core/leads/reads";
import * as Conversations from "#core/messaging/conversations";
import { heldToTheirOwn, isTheirs } from "#core/routing/visibility";
import type { PagingQuery } from "#core/shared/paging";

/**
 * `POST /events/all/my` (endpoint 13) as the caller may see it. An agent held to their own leads lists the events
 * written for them (`assignedUserId`, docs/routing.md), but the whole timeline of a lead or conversation they may read
 * now, when the list is narrowed to it (the `leadId` / `conversationId` parameter, or a filter on one of them with one
 * value): the agent a lead passes to reads its history, the lead page and the thread stay whole. Here, not in
 * core/events, which knows neither leads nor conversations.
 */
export async function listVisibleEvents(actor: Actor, query: ListEventsQuery, paging: PagingQuery) {
  const theirsOnly = (await heldToTheirOwn(actor)) && !(await readsTimelineOfTheirs(actor, query, paging));
  return listEvents(actor, query, paging, theirsOnly);
}

/** Whether the list is narrowed to a lead or conversation of the caller's (assigned or offered to them now). */
async function readsTimelineOfTheirs(actor: Actor, query: ListEventsQuery, paging: PagingQuery): Promise<boolean> {
  const only = (field: "leadId" | "conversationId") => {
    const filters = (paging.filters ?? []).filter((filter) => filter.field === field);
    const value = filters.length === 1 ? filters[0]!.value : undefined;
    return typeof value === "string" ? value : undefined;
  };
  const leadId = query.leadId ?? only("leadId");
  const conversationId = query.conversationId ?? only("conversationId");
  const narrowedTo = await Promise.all([
    leadId ? LeadReads.find(actor.organizationId, leadId) : undefined,
    conversationId ? Conversations.find(actor.organizationId, conversationId) : undefined,
  ]);
  return narrowedTo.some((subject) => subject !== undefined && isTheirs(actor, subject));
}
