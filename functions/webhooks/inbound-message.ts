import { endpoint } from "#core/http/endpoint";
import { inboundMessageWebhook } from "#core/http/operations/webhooks";
import { emptyTwiml, providerWebhookOptions, webhookRequest } from "#core/http/webhook-request";
import { Webhooks } from "#core/messaging/webhooks";

export const handler = endpoint(inboundMessageWebhook, async ({ params, event }) => {
  await Webhooks.inboundMessage(params.provider, webhookRequest(event));
  return emptyTwiml();
}, providerWebhookOptions);
