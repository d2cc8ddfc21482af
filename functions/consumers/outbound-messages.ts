import * as Outbound from "#core/messaging/outbound";
import "#core/messaging/queue";
import { subscribe } from "#core/queue/subscribe";

/** Outbound queue: moves each message forward (schedule, block, send, retry); idempotent per message. */
export const handler = subscribe("outboundMessages", {
  "message.send": {
    handle: (message) =>
      Outbound.process(message.organizationId, message.data.messageId, message.data.slot, message.data),
    onPoison: (message, error) => Outbound.abandon(message.organizationId, message.data.messageId, error),
  },
});
