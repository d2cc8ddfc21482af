import { defineOperation } from "#core/http/operation";
import { EventRecordSchema } from "#core/events/index";
import { ListEventsQuerySchema, ListEventsSchema } from "#core/events/list";
import { pageSchema } from "#core/shared/paging";

export const listEvents = defineOperation({
  operationId: "listEvents",
  summary: "List the organization's events, newest first (endpoint 13)",
  description:
    "Query parameters: `eventCategory`, `startAt` (inclusive), `endAt` (exclusive), `leadId`, `conversationId`, `eventType`. " +
    "The body is the paging query; an empty object is valid. `endAt` must be later than `startAt` (400 otherwise).",
  tag: "Events",
  auth: "bearer",
  permission: "events:read",
  query: ListEventsQuerySchema,
  body: ListEventsSchema,
  success: { status: 200, description: "A page of event records (spec 2.5)", schema: pageSchema(EventRecordSchema) },
  problems: [400, 401, 403, 413, 415, 429],
  example: {},
});
