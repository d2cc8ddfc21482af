import { endpoint } from "#core/http/endpoint";
import { reassignConversationSender } from "#core/http/operations/conversations";
import * as Conversations from "#core/messaging/conversations";

export const handler = endpoint(reassignConversationSender, ({ actor, params, body }) =>
  Conversations.reassignSender(actor, params.id, body.phoneNumberId),
);
