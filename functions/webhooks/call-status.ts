import * as CallCallbacks from "#core/calls/carrier-callbacks";
import { endpoint } from "#core/http/endpoint";
import { callStatusWebhook } from "#core/http/operations/call-webhooks";
import { emptyTwiml, providerWebhookOptions, webhookRequest } from "#core/http/webhook-request";

export const handler = endpoint(
  callStatusWebhook,
  async ({ params, event }) => {
    await CallCallbacks.statusCallback(params.provider, webhookRequest(event));
    return emptyTwiml();
  },
  providerWebhookOptions,
);
