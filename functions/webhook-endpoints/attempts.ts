import { endpoint } from "#core/http/endpoint";
import { listWebhookAttempts } from "#core/http/operations/webhook-endpoints";
import { WebhookDeliveries } from "#core/webhooks/deliveries";

export const handler = endpoint(listWebhookAttempts, ({ actor, body, params }) => WebhookDeliveries.attempts(actor, params.id, body));
