import type { APIGatewayProxyEventV2 } from "aws-lambda";
import { verifiedEvent } from "#core/billing/stripe";
import { config } from "#core/config";
import type { EndpointOptions } from "#core/http/endpoint-chain";
import { HttpResponse } from "#core/http/response";
import { providerByName } from "#core/providers/index";
import type { WebhookRequest } from "#core/providers/port";

/**
 * A provider webhook as the provider sent it: the public URL it called (query
 * included, as signed), the headers and the raw body (base64 undone).
 */
export function webhookRequest(event: APIGatewayProxyEventV2): WebhookRequest {
  const query = event.rawQueryString ? `?${event.rawQueryString}` : "";
  const raw = event.body ?? "";
  return {
    url: `${config.publicBaseUrl.replace(/\/$/, "")}${event.rawPath}${query}`,
    headers: event.headers ?? {},
    body: event.isBase64Encoded ? Buffer.from(raw, "base64").toString("utf8") : raw,
  };
}

/** What providers expect back: an empty TwiML document (replies are sent through the API, not inline). */
export function emptyTwiml(): HttpResponse {
  return HttpResponse.text(200, '<?xml version="1.0" encoding="UTF-8"?><Response></Response>', "text/xml");
}

/**
 * Provider webhooks verify their signature before the rate limit: a callback
 * signed by a configured carrier is not counted against the caller's IP (a
 * carrier posts every receipt from a few addresses, and a refused receipt is
 * lost), while an unsigned or forged one counts against its IP as any anonymous
 * request. The volume of signed callbacks is bounded by our own sends and calls.
 */
export const providerWebhookOptions: EndpointOptions = {
  exemptFromRateLimit: (event) => isSignedByProvider(event),
  // The journey of the message or call the callback reports on (its URL carries it; core/observability).
  correlationIdOf: (event) => (isSignedByProvider(event) ? event.queryStringParameters?.correlationId : undefined),
};

function isSignedByProvider(event: APIGatewayProxyEventV2): boolean {
  const provider = providerByName(event.pathParameters?.provider ?? "");
  return provider !== undefined && provider.verifyWebhookSignature(webhookRequest(event));
}

/**
 * Stripe's payment events, like carrier callbacks, are not counted against the
 * caller's IP once their signature verifies: Stripe posts every event from a
 * few addresses, and the volume of signed events is bounded by our own payments.
 */
export const stripeWebhookOptions: EndpointOptions = {
  exemptFromRateLimit: async (event) => {
    const request = webhookRequest(event);
    return (await verifiedEvent(request.body, stripeSignatureOf(request))) !== undefined;
  },
};

export function stripeSignatureOf(request: WebhookRequest): string | undefined {
  return Object.entries(request.headers).find(([name]) => name.toLowerCase() === "stripe-signature")?.[1];
}
