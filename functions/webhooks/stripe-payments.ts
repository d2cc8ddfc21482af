import * as Payments from "#core/billing/payments";
import { publicEndpoint } from "#core/http/public-endpoint";
import { stripePaymentWebhook } from "#core/http/operations/billing";
import { stripeSignatureOf, stripeWebhookOptions, webhookRequest } from "#core/http/webhook-request";

export const handler = publicEndpoint(
  stripePaymentWebhook,
  async ({ event }) => {
    const request = webhookRequest(event);
    return { received: true, outcome: await Payments.receiveStripeEvent(request.body, stripeSignatureOf(request)) };
  },
  stripeWebhookOptions,
);
