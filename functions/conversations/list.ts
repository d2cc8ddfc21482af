import { endpoint } from "#core/http/endpoint";
import { listConversations } from "#core/http/operations/conversations";
import { conversationsPage } from "#core/messaging/conversation-list";

export const handler = endpoint(listConversations, ({ actor, body }) => conversationsPage(actor, body));
