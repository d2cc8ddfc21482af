import { Payments } from "#core/billing/payments";
import { endpoint } from "#core/http/endpoint";
import { stripePaymentWebhook } from "#core/http/operations/billing";
import { webhookRequest } from "#core/http/webhook-request";

export const handler = endpoint(stripePaymentWebhook, async ({ event }) => {
  const request = webhookRequest(event);
  const signature = Object.entries(request.headers).find(([name]) => name.toLowerCase() === "stripe-signature")?.[1];
  return { received: true, outcome: await Payments.receiveStripeEvent(request.body, signature) };
});
