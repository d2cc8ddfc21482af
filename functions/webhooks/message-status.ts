import { publicEndpoint } from "#core/http/public-endpoint";
import { messageStatusWebhook } from "#core/http/operations/webhooks";
import { emptyTwiml, providerWebhookOptions, webhookRequest } from "#core/http/webhook-request";
import { messageStatus } from "#core/messaging/carrier-callbacks";

export const handler = publicEndpoint(
  messageStatusWebhook,
  async ({ params, event }) => {
    await messageStatus(params.provider, webhookRequest(event));
    return emptyTwiml();
  },
  providerWebhookOptions,
);
