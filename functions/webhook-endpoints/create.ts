import { endpoint } from "#core/http/endpoint";
import { createWebhookEndpoint } from "#core/http/operations/webhook-endpoints";
import * as WebhookEndpoints from "#core/webhooks/endpoints";

export const handler = endpoint(createWebhookEndpoint, async ({ actor, body, resourceId }) =>
  WebhookEndpoints.create(actor, body, { endpointId: await resourceId() }),
);
