import * as v from "valibot";
import { routedBy } from "#core/http/operation";
import { conversationRoutes } from "#stacks/definitions";
import { AssignConversationSchema } from "#core/messaging/conversation-assignment";
import { CannedReplySchema, CreateCannedReplySchema, ListCannedRepliesSchema } from "#core/messaging/canned-replies";
import { AddNoteSchema, ConversationNoteSchema } from "#core/messaging/conversation-notes";
import { ConversationSchema, ReassignSenderSchema } from "#core/messaging/conversations";
import { ListConversationsSchema } from "#core/messaging/conversation-list";
import { pageSchema } from "#core/shared/paging";

const defineOperation = routedBy(conversationRoutes);

const ConversationIdParams = v.object({ id: v.pipe(v.string(), v.minLength(1), v.maxLength(64)) });
// Declared apart from its operation: a call in an operation's arguments is kept by the bundler as an effect where the
// operation is unused, and with it every schema beside it.
const CannedReplyIdParams = v.object({ id: v.pipe(v.string(), v.minLength(1), v.maxLength(64)) });

export const listConversations = /* @__PURE__ */ defineOperation({
  operationId: "listConversations",
  summary: "List the organization's conversations, latest activity first (paging query in the body)",
  description:
    'Filters: unread (`{ field: "unread", value: true }`), assignedUserId (a user id, `mine` for the calling user, `unassigned`), leadId, contactPhoneNumber, phoneNumberId. ' +
    "Search: leadName, contactPhoneNumber, lastMessagePreview (case-insensitive, part of the text). " +
    "An agent of an organization whose agents see only their own leads lists only the conversations assigned to them. " +
    "With filters or search a page may hold fewer than pageSize items (even none) while a continuationToken is returned: keep following it until it is null.",
  tag: "Conversations",
  auth: "bearer",
  permission: "messages:read",
  body: ListConversationsSchema,
  success: {
    status: 200,
    description: "A page of conversations",
    schema: /* @__PURE__ */ pageSchema(ConversationSchema),
  },
  problems: [400, 401, 403, 413, 415, 429],
  example: { filters: [{ field: "unread", value: true }] },
});

export const getConversation = /* @__PURE__ */ defineOperation({
  operationId: "getConversation",
  summary: "Read one conversation, with its sticky sender number",
  tag: "Conversations",
  auth: "bearer",
  permission: "messages:read",
  params: ConversationIdParams,
  success: { status: 200, description: "The conversation", schema: ConversationSchema },
  problems: [401, 403, 404, 429],
});

export const markConversationRead = /* @__PURE__ */ defineOperation({
  operationId: "markConversationRead",
  summary: "Mark a conversation read (clears unread)",
  tag: "Conversations",
  auth: "bearer",
  permission: "messages:read",
  params: ConversationIdParams,
  success: { status: 200, description: "The conversation", schema: ConversationSchema },
  problems: [401, 403, 404, 429],
});

export const reassignConversationSender = /* @__PURE__ */ defineOperation({
  operationId: "reassignConversationSender",
  summary: "Reassign the conversation's sticky sender number (recorded as an event)",
  tag: "Conversations",
  auth: "bearer",
  permission: "messages:send",
  params: ConversationIdParams,
  body: ReassignSenderSchema,
  success: { status: 200, description: "The conversation", schema: ConversationSchema },
  problems: [400, 401, 403, 404, 413, 415, 429],
  example: { phoneNumberId: "01JABCDEFGHJKMNPQRSTVWXYZ0" },
});

export const assignConversation = /* @__PURE__ */ defineOperation({
  operationId: "assignConversation",
  summary:
    "Assign, reassign or unassign a conversation (an agent may claim an unassigned one where the organization allows it)",
  description:
    "The rules of `PUT /leads/{id}/assignee`: owners, admins and API keys set any active user, or null to unassign; an agent may only set themselves on an unassigned conversation, and only with `agentsMayClaim` (`PUT /routing/settings`). " +
    "Of two changes at once one wins and the other is a 409. A conversation also follows its lead's assignment (within seconds of the lead's change) unless it was assigned here after that. " +
    "Recorded as `ConversationAssigned` / `ConversationUnassigned` events and delivered as the `conversation.assigned` / `conversation.unassigned` webhooks.",
  tag: "Conversations",
  auth: "bearer",
  permission: "leads:write",
  params: ConversationIdParams,
  body: AssignConversationSchema,
  success: { status: 200, description: "The conversation with its new assignee", schema: ConversationSchema },
  problems: [400, 401, 403, 404, 409, 413, 415, 429],
  example: { userId: "01JAGENT1" },
});

export const addConversationNote = /* @__PURE__ */ defineOperation({
  operationId: "addConversationNote",
  summary: "Add an internal note to a conversation (shown in the thread, never sent to the contact)",
  description:
    "Stored as a `ConversationNoteAdded` event record (the text in `summary`, the author in `actorUserId` / `actorDisplayName`), so `POST /events/all/my` filtered by `conversationId` or `leadId` lists it in order with the messages and calls.",
  tag: "Conversations",
  auth: "bearer",
  permission: "messages:send",
  params: ConversationIdParams,
  body: AddNoteSchema,
  success: { status: 201, description: "The note", schema: ConversationNoteSchema },
  problems: [400, 401, 403, 404, 413, 415, 429],
  example: { body: "Prefers a call after 5 pm; spouse decides." },
});

export const listCannedReplies = /* @__PURE__ */ defineOperation({
  operationId: "listCannedReplies",
  summary: "List the organization's canned replies (paging query in the body)",
  description: "Search: name, body. Sort: createdAt (newest first by default), name.",
  tag: "Conversations",
  auth: "bearer",
  permission: "messages:read",
  body: ListCannedRepliesSchema,
  success: {
    status: 200,
    description: "A page of canned replies",
    schema: /* @__PURE__ */ pageSchema(CannedReplySchema),
  },
  problems: [400, 401, 403, 413, 415, 429],
  example: { pageSize: 50 },
});

export const createCannedReply = /* @__PURE__ */ defineOperation({
  operationId: "createCannedReply",
  summary: "Save a canned reply for everyone in the organization",
  tag: "Conversations",
  auth: "bearer",
  permission: "messages:send",
  body: CreateCannedReplySchema,
  success: { status: 201, description: "The canned reply", schema: CannedReplySchema },
  problems: [400, 401, 403, 413, 415, 429],
  example: { name: "Quote follow-up", body: "Hi! Did you get a chance to look at the quote?" },
});

export const deleteCannedReply = /* @__PURE__ */ defineOperation({
  operationId: "deleteCannedReply",
  summary: "Delete a canned reply",
  tag: "Conversations",
  auth: "bearer",
  permission: "messages:send",
  params: CannedReplyIdParams,
  success: { status: 204, description: "Deleted; no content" },
  problems: [400, 401, 403, 404, 429],
});
