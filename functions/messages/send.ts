import { endpoint } from "#core/http/endpoint";
import { sendMessage } from "#core/http/operations/messages";
import { Messages } from "#core/messaging/messages";

// The send reads (lead, sender, wallet, conversation) while the rate limit is counted, and writes only once admitted.
export const handler = endpoint(
  sendMessage,
  ({ actor, body, admitted, resourceId }) =>
    Messages.send(actor, body, { beforeWriting: admitted, messageId: resourceId }),
  { rateLimitWhileReading: true },
);
