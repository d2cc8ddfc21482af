import { endpoint } from "#core/http/endpoint";
import { messageStatusWebhook } from "#core/http/operations/webhooks";
import { emptyTwiml, providerWebhookOptions, webhookRequest } from "#core/http/webhook-request";
import { Webhooks } from "#core/messaging/webhooks";

export const handler = endpoint(messageStatusWebhook, async ({ params, event }) => {
  await Webhooks.messageStatus(params.provider, webhookRequest(event));
  return emptyTwiml();
}, providerWebhookOptions);
