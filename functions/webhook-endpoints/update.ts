import { audited } from "#core/http/audited";
import { endpoint } from "#core/http/endpoint";
import { updateWebhookEndpoint } from "#core/http/operations/webhook-endpoints";
import { WebhookEndpoints } from "#core/webhooks/endpoints";

export const handler = endpoint(
  updateWebhookEndpoint,
  audited(
    {
      action: "webhookEndpoint.updated",
      resourceType: "WebhookEndpoint",
      before: ({ actor, params }) => WebhookEndpoints.fromId(actor, params.id),
    },
    ({ actor, body, params }) => WebhookEndpoints.update(actor, params.id, body),
  ),
);
