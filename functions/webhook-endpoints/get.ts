import { endpoint } from "#core/http/endpoint";
import { getWebhookEndpoint } from "#core/http/operations/webhook-endpoints";
import * as WebhookEndpoints from "#core/webhooks/endpoints";

export const handler = endpoint(getWebhookEndpoint, ({ actor, params }) => WebhookEndpoints.fromId(actor, params.id));
