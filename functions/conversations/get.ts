import { endpoint } from "#core/http/endpoint";
import { getConversation } from "#core/http/operations/conversations";
import * as Conversations from "#core/messaging/conversations";

export const handler = endpoint(getConversation, ({ actor, params }) => Conversations.fromId(actor, params.id));
