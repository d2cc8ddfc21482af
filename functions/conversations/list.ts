import { endpoint } from "#core/http/endpoint";
import { listConversations } from "#core/http/operations/conversations";
import { Conversations } from "#core/messaging/conversations";

export const handler = endpoint(listConversations, ({ actor, body }) => Conversations.list(actor, body));
