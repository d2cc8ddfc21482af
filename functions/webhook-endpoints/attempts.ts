import { endpoint } from "#core/http/endpoint";
import { listWebhookAttempts } from "#core/http/operations/webhook-endpoints";
import * as WebhookDeliveryLog from "#core/webhooks/delivery-log";

export const handler = endpoint(listWebhookAttempts, ({ actor, body, params }) =>
  WebhookDeliveryLog.attempts(actor, params.id, body),
);
