import { subscribe } from "#core/queue/subscribe";
import { WebhookDeliveries } from "#core/webhooks/deliveries";

/**
 * One webhook attempt per message. A message that keeps failing in our own code ends, on its last receive, as a
 * failed attempt in the endpoint's delivery log (and a Failed delivery) instead of vanishing into the DLQ unseen.
 */
export const handler = subscribe("webhookDeliveries", {
  "webhook.deliver": {
    handle: (message) => WebhookDeliveries.deliver(message.organizationId, message.data),
    onPoison: (message, error) => WebhookDeliveries.abandon(message.organizationId, message.data, error),
  },
});
