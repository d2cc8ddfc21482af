import { endpoint } from "#core/http/endpoint";
import { deleteWebhookEndpoint } from "#core/http/operations/webhook-endpoints";
import * as WebhookEndpoints from "#core/webhooks/endpoints";

export const handler = endpoint(deleteWebhookEndpoint, ({ actor, params }) =>
  WebhookEndpoints.remove(actor, params.id),
);
