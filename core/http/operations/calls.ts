import * as v from "valibot";
import { ListCallEventsSchema, ListCallsSchema } from "#core/calls/queries";
import { CallSchema, PlaceCallSchema } from "#core/calls/schemas";
import { routedBy } from "#core/http/operation";
import { callRoutes } from "#stacks/definitions";
import { pageSchema } from "#core/shared/paging";

const defineOperation = routedBy(callRoutes);

// Declared apart from the operations: a call in an operation's arguments is kept by the bundler as an effect where
// the operation is unused, and with it every schema beside it.
const CallIdParams = v.object({ id: v.pipe(v.string(), v.minLength(1), v.maxLength(64)) });
const PhoneNumberParams = v.object({ phoneNumber: v.pipe(v.string(), v.minLength(1), v.maxLength(64)) });

export const placeCall = /* @__PURE__ */ defineOperation({
  operationId: "placeCall",
  summary: "Place an outbound call to a lead or a number",
  description:
    "Answers 202 with the call (`status` Queued); its progress (Ringing, InProgress with `answeredAt`, Completed with `endedAt`, `duration`, `billableSeconds`, or Busy/NoAnswer/Failed/Canceled with `statusReason`) is read later with GET /calls/{id}. " +
    "The calling number follows the messaging sender rule among voice-capable numbers. A suppressed number is a 422. The longest allowed call is reserved from the wallet: 402 when it cannot be covered or the wallet is suspended.",
  tag: "Calls",
  auth: "bearer",
  permission: "calls:place",
  body: PlaceCallSchema,
  success: { status: 202, description: "The call, accepted and queued", schema: CallSchema },
  idempotent: true,
  problems: [400, 401, 402, 403, 413, 415, 422, 429],
  example: { leadId: "01J0000000000000000000LEAD", record: false },
});

export const getCall = /* @__PURE__ */ defineOperation({
  operationId: "getCall",
  summary: "Read one call of the current organization",
  description:
    "An agent whose organization has `agentsSeeAllLeads: false` reads their own calls and those of a conversation assigned to them now; any other call is a 404.",
  tag: "Calls",
  auth: "bearer",
  permission: "calls:read",
  params: CallIdParams,
  success: { status: 200, description: "The call", schema: CallSchema },
  problems: [401, 403, 404, 429],
});

export const listCalls = /* @__PURE__ */ defineOperation({
  operationId: "listCalls",
  summary: "List the current organization's calls, newest first (the call log; paging query in the body)",
  description:
    'Every call, outbound and inbound. `filters: [{ field: "missed", value: true }]` narrows to the inbound calls nobody ' +
    "answered (to call back); `direction`, `status`, `leadId` and the numbers filter too, `search` looks in the numbers. " +
    '`assignedUserId` narrows to one owner\'s calls: a user id, `"mine"` (the calling user; 400 for an API key) or `"unassigned"`. ' +
    "A call's owner is its conversation's assignee when it was placed or came in (docs/routing.md). An agent whose " +
    "organization has `agentsSeeAllLeads: false` lists only their own calls. Only the current organization's calls are listed.",
  tag: "Calls",
  auth: "bearer",
  permission: "calls:read",
  body: ListCallsSchema,
  success: { status: 200, description: "A page of calls", schema: /* @__PURE__ */ pageSchema(CallSchema) },
  problems: [400, 401, 403, 413, 415, 429],
  example: { pageSize: 20, filters: [{ field: "missed", value: true }] },
});

export const listCallEventsByPhone = /* @__PURE__ */ defineOperation({
  operationId: "listCallEventsByPhone",
  summary: "List the call events (spec 2.6) of calls from or to a phone number, newest first",
  description:
    "`phoneNumber` in E.164; URL-encode the `+` as %2B (a raw `+` is accepted too). A malformed number is a 400. Only the current organization's calls are listed. Body: the paging query (an empty object is valid); `assignedUserId` filters by owner as on `POST /calls/all/my`, and an agent held to their own leads lists only their own calls.",
  tag: "Calls",
  auth: "bearer",
  permission: "events:read",
  params: PhoneNumberParams,
  body: ListCallEventsSchema,
  success: { status: 200, description: "A page of call events", schema: /* @__PURE__ */ pageSchema(CallSchema) },
  problems: [400, 401, 403, 413, 415, 429],
  example: { pageSize: 20, filters: [{ field: "direction", value: "Inbound" }] },
});
