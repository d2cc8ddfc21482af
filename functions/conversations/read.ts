import { endpoint } from "#core/http/endpoint";
import { markConversationRead } from "#core/http/operations/conversations";
import * as Conversations from "#core/messaging/conversations";

export const handler = endpoint(markConversationRead, ({ actor, params }) => Conversations.markRead(actor, params.id));
