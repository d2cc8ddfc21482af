import { endpoint } from "#core/http/endpoint";
import { listWebhookEventTypes } from "#core/http/operations/webhook-endpoints";
import { webhookEventTypes } from "#core/webhooks/event-types-file";

export const handler = endpoint(listWebhookEventTypes, () => webhookEventTypes());
