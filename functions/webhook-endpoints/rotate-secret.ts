import { audited } from "#core/http/audited";
import { endpoint } from "#core/http/endpoint";
import { rotateWebhookSecret } from "#core/http/operations/webhook-endpoints";
import { WebhookEndpoints } from "#core/webhooks/endpoints";

export const handler = endpoint(
  rotateWebhookSecret,
  audited(
    {
      action: "webhookEndpoint.secretRotated",
      resourceType: "WebhookEndpoint",
      before: ({ actor, params }) => WebhookEndpoints.fromId(actor, params.id),
    },
    ({ actor, params }) => WebhookEndpoints.rotateSecret(actor, params.id),
  ),
);
