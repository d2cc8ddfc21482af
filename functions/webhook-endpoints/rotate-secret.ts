import { endpoint } from "#core/http/endpoint";
import { rotateWebhookSecret } from "#core/http/operations/webhook-endpoints";
import * as WebhookEndpoints from "#core/webhooks/endpoints";

export const handler = endpoint(rotateWebhookSecret, ({ actor, params }) =>
  WebhookEndpoints.rotateSecret(actor, params.id),
);
