import { endpoint } from "#core/http/endpoint";
import { addConversationNote } from "#core/http/operations/conversations";
import * as ConversationNotes from "#core/messaging/conversation-notes";

export const handler = endpoint(addConversationNote, ({ actor, params, body }) =>
  ConversationNotes.add(actor, params.id, body),
);
