import { endpoint } from "#core/http/endpoint";
import { pingWebhookEndpoint } from "#core/http/operations/webhook-endpoints";
import * as WebhookDeliveryLog from "#core/webhooks/delivery-log";

export const handler = endpoint(pingWebhookEndpoint, ({ actor, params }) => WebhookDeliveryLog.ping(actor, params.id));
