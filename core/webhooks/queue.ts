import * as v from "valibot";
import { defineMessage } from "#core/queue/messages";

/** One attempt at delivering a webhook message to an endpoint. */
export const WebhookDeliver = defineMessage(
  "webhook.deliver",
  "webhookDeliveries",
  v.object({
    endpointId: v.string(),
    messageId: v.string(),
    /** Bumped by every replay, so messages of an earlier round are ignored. */
    generation: v.number(),
    attempt: v.number(),
  }),
);

export type DeliverMessage = v.InferOutput<typeof WebhookDeliver.schema>;

declare module "#core/queue/messages" {
  interface QueueMessages {
    "webhook.deliver": typeof WebhookDeliver;
  }
}
