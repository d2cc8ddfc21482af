import { publicEndpoint } from "#core/http/public-endpoint";
import { inboundMessageWebhook } from "#core/http/operations/webhooks";
import { emptyTwiml, providerWebhookOptions, webhookRequest } from "#core/http/webhook-request";
import { inboundMessage } from "#core/messaging/carrier-callbacks";

export const handler = publicEndpoint(
  inboundMessageWebhook,
  async ({ params, event }) => {
    await inboundMessage(params.provider, webhookRequest(event));
    return emptyTwiml();
  },
  providerWebhookOptions,
);
