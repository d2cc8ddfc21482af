import { endpoint } from "#core/http/endpoint";
import { sendMessage } from "#core/http/operations/messages";
import * as Messages from "#core/messaging/messages";

// The send reads (lead, wallet, conversation) while the rate limit is counted, writes only once admitted, and stores
// its Idempotency-Key answer in the message's own transaction (a key used before is found by the first read).
export const handler = endpoint(
  sendMessage,
  ({ actor, body, admitted, answerWrite, answeredRead }) =>
    Messages.send(actor, body, { beforeWriting: admitted, alsoWrite: answerWrite, alsoRead: answeredRead() }),
  { rateLimitWhileReading: true, answerWithWrite: true },
);
