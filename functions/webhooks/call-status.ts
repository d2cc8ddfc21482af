import * as CallCallbacks from "#core/calls/carrier-callbacks";
import { publicEndpoint } from "#core/http/public-endpoint";
import { callStatusWebhook } from "#core/http/operations/call-webhooks";
import { emptyTwiml, providerWebhookOptions, webhookRequest } from "#core/http/webhook-request";

export const handler = publicEndpoint(
  callStatusWebhook,
  async ({ params, event }) => {
    await CallCallbacks.statusCallback(params.provider, webhookRequest(event));
    return emptyTwiml();
  },
  providerWebhookOptions,
);
