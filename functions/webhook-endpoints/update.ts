import { endpoint } from "#core/http/endpoint";
import { updateWebhookEndpoint } from "#core/http/operations/webhook-endpoints";
import * as WebhookEndpoints from "#core/webhooks/endpoints";

export const handler = endpoint(updateWebhookEndpoint, ({ actor, body, params }) =>
  WebhookEndpoints.update(actor, params.id, body),
);
