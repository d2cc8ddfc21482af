import { endpoint } from "#core/http/endpoint";
import { assignConversation } from "#core/http/operations/conversations";
import * as ConversationAssignment from "#core/messaging/conversation-assignment";

export const handler = endpoint(assignConversation, ({ actor, params, body }) =>
  ConversationAssignment.assign(actor, params.id, body),
);
