import { endpoint } from "#core/http/endpoint";
import { listWebhookEndpoints } from "#core/http/operations/webhook-endpoints";
import * as WebhookEndpoints from "#core/webhooks/endpoints";

export const handler = endpoint(listWebhookEndpoints, ({ actor, body }) => WebhookEndpoints.list(actor, body));
