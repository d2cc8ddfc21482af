import { endpoint } from "#core/http/endpoint";
import { messageStatusWebhook } from "#core/http/operations/webhooks";
import { emptyTwiml, providerWebhookOptions, webhookRequest } from "#core/http/webhook-request";
import { messageStatus } from "#core/messaging/carrier-callbacks";

export const handler = endpoint(
  messageStatusWebhook,
  async ({ params, event }) => {
    await messageStatus(params.provider, webhookRequest(event));
    return emptyTwiml();
  },
  providerWebhookOptions,
);
