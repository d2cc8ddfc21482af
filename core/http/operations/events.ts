import { routedBy } from "#core/http/operation";
import { eventRoutes } from "#stacks/definitions";
import { EventRecordSchema } from "#core/events/index";
import { ListEventsQuerySchema, ListEventsSchema } from "#core/events/list";
import { pageSchema } from "#core/shared/paging";

const defineOperation = routedBy(eventRoutes);

export const listEvents = /* @__PURE__ */ defineOperation({
  operationId: "listEvents",
  summary: "List the organization's events, newest first (endpoint 13)",
  description:
    "Query parameters: `eventCategory`, `startAt` (inclusive), `endAt` (exclusive), `leadId`, `conversationId`, `eventType`. " +
    "The body is the paging query; an empty object is valid. `endAt` must be later than `startAt` (400 otherwise). " +
    '`assignedUserId` filters by owner (a user id, `"mine"`: the calling user, 400 for an API key, or `"unassigned"`): the assignee of the event\'s lead or conversation when it was recorded. ' +
    "An agent whose organization has `agentsSeeAllLeads: false` lists only their own events, or the whole timeline of a lead or conversation assigned to them now when the list is narrowed to it (`leadId` / `conversationId`).",
  tag: "Events",
  auth: "bearer",
  permission: "events:read",
  query: ListEventsQuerySchema,
  body: ListEventsSchema,
  success: { status: 200, description: "A page of event records (spec 2.5)", schema: pageSchema(EventRecordSchema) },
  problems: [400, 401, 403, 413, 415, 429],
  example: {},
});
