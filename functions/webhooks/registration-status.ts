import { CarrierRegistration } from "#core/carrier-registration/index";
import { endpoint } from "#core/http/endpoint";
import { registrationStatusWebhook } from "#core/http/operations/webhooks";
import { emptyTwiml, providerWebhookOptions, webhookRequest } from "#core/http/webhook-request";

export const handler = endpoint(
  registrationStatusWebhook,
  async ({ params, event }) => {
    await CarrierRegistration.statusCallback(params.provider, webhookRequest(event));
    return emptyTwiml();
  },
  providerWebhookOptions,
);
