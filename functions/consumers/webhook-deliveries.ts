import * as v from "valibot";
import { receiveCount, subscribe } from "#core/queue/subscribe";
import { EnvelopeSchema } from "#core/queue/events";
import { WebhookDeliveries, type DeliverMessage } from "#core/webhooks/deliveries";
import { queues } from "#stacks/definitions";

/**
 * One webhook attempt per message. A message that keeps failing in our own code ends, on its last receive, as a
 * failed attempt in the endpoint's delivery log instead of vanishing into the DLQ unseen.
 */
export const handler = subscribe(
  { "webhook.deliver": (message) => WebhookDeliveries.deliver(message.organizationId, message.data) },
  {
    onPoison: async (record, error) => {
      if (receiveCount(record) < queues.webhookDeliveries.maxReceiveCount) return;
      const parsed = v.safeParse(EnvelopeSchema, JSON.parse(record.body));
      if (parsed.success) await WebhookDeliveries.abandon(parsed.output.organizationId, parsed.output.data as DeliverMessage, error);
    },
  },
);
