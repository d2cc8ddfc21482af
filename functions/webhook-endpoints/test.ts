import { endpoint } from "#core/http/endpoint";
import { pingWebhookEndpoint } from "#core/http/operations/webhook-endpoints";
import { WebhookDeliveries } from "#core/webhooks/deliveries";

export const handler = endpoint(pingWebhookEndpoint, ({ actor, params }) => WebhookDeliveries.ping(actor, params.id));
