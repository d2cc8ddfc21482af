import * as CarrierRegistration from "#core/carrier-registration/index";
import { publicEndpoint } from "#core/http/public-endpoint";
import { registrationStatusWebhook } from "#core/http/operations/webhooks";
import { emptyTwiml, providerWebhookOptions, webhookRequest } from "#core/http/webhook-request";

export const handler = publicEndpoint(
  registrationStatusWebhook,
  async ({ params, event }) => {
    await CarrierRegistration.statusCallback(params.provider, webhookRequest(event));
    return emptyTwiml();
  },
  providerWebhookOptions,
);
