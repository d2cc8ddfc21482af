import { endpoint } from "#core/http/endpoint";
import { replayWebhookEvents } from "#core/http/operations/webhook-endpoints";
import { WebhookDeliveries } from "#core/webhooks/deliveries";

export const handler = endpoint(replayWebhookEvents, ({ actor, body, params }) => WebhookDeliveries.replay(actor, params.id, body));
