import { subscribe } from "#core/queue/subscribe";
import * as DeliveryAttempts from "#core/webhooks/attempt";

/**
 * One webhook attempt per message. A message that keeps failing in our own code ends, on its last receive, as a
 * failed attempt in the endpoint's delivery log (and a Failed delivery) instead of vanishing into the DLQ unseen.
 */
export const handler = subscribe("webhookDeliveries", {
  "webhook.deliver": {
    handle: (message) => DeliveryAttempts.deliver(message.organizationId, message.data),
    onPoison: (message, error) => DeliveryAttempts.abandon(message.organizationId, message.data, error),
  },
});
