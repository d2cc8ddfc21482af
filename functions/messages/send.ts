import { endpoint } from "#core/http/endpoint";
import { sendMessage } from "#core/http/operations/messages";
import { Messages } from "#core/messaging/messages";

// The send reads (lead, wallet, conversation) while the rate limit is counted, writes only once admitted, and stores
// its Idempotency-Key answer in the message's own transaction.
export const handler = endpoint(
  sendMessage,
  ({ actor, body, admitted, answerWrite }) =>
    Messages.send(actor, body, { beforeWriting: admitted, alsoWrite: answerWrite }),
  { rateLimitWhileReading: true, answerWithWrite: true },
);
