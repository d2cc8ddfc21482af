import * as v from "valibot";
import { defineOperation } from "#core/http/operation";
import { ConversationSchema, ListConversationsSchema, ReassignSenderSchema } from "#core/messaging/conversations";
import { pageSchema } from "#core/shared/paging";

const ConversationIdParams = v.object({ id: v.pipe(v.string(), v.minLength(1), v.maxLength(64)) });

export const listConversations = defineOperation({
  operationId: "listConversations",
  summary: "List the organization's conversations, latest activity first (paging query in the body)",
  description: 'Filter unread ones with `filters: [{ field: "unread", value: true }]`.',
  tag: "Conversations",
  auth: "bearer",
  permission: "messages:read",
  body: ListConversationsSchema,
  success: { status: 200, description: "A page of conversations", schema: pageSchema(ConversationSchema) },
  problems: [400, 401, 403, 413, 415, 429],
  example: { filters: [{ field: "unread", value: true }] },
});

export const getConversation = defineOperation({
  operationId: "getConversation",
  summary: "Read one conversation, with its sticky sender number",
  tag: "Conversations",
  auth: "bearer",
  permission: "messages:read",
  params: ConversationIdParams,
  success: { status: 200, description: "The conversation", schema: ConversationSchema },
  problems: [401, 403, 404, 429],
});

export const markConversationRead = defineOperation({
  operationId: "markConversationRead",
  summary: "Mark a conversation read (clears unread)",
  tag: "Conversations",
  auth: "bearer",
  permission: "messages:read",
  params: ConversationIdParams,
  success: { status: 200, description: "The conversation", schema: ConversationSchema },
  problems: [401, 403, 404, 429],
});

export const reassignConversationSender = defineOperation({
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
