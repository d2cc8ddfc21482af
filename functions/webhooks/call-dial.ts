import * as CallCallbacks from "#core/calls/carrier-callbacks";
import { publicEndpoint } from "#core/http/public-endpoint";
import { callDialWebhook } from "#core/http/operations/call-webhooks";
import { HttpResponse } from "#core/http/response";
import { providerWebhookOptions, webhookRequest } from "#core/http/webhook-request";

export const handler = publicEndpoint(
  callDialWebhook,
  async ({ params, event }) =>
    HttpResponse.text(200, await CallCallbacks.dialResult(params.provider, webhookRequest(event)), "text/xml"),
  providerWebhookOptions,
);
