import { audited } from "#core/http/audited";
import { endpoint } from "#core/http/endpoint";
import { deleteWebhookEndpoint } from "#core/http/operations/webhook-endpoints";
import { WebhookEndpoints } from "#core/webhooks/endpoints";

export const handler = endpoint(
  deleteWebhookEndpoint,
  audited(
    {
      action: "webhookEndpoint.deleted",
      resourceType: "WebhookEndpoint",
      before: ({ actor, params }) => WebhookEndpoints.fromId(actor, params.id),
    },
    ({ actor, params }) => WebhookEndpoints.remove(actor, params.id),
  ),
);
