import { endpoint } from "#core/http/endpoint";
import { listWebhookEventTypes } from "#core/http/operations/webhook-endpoints";
import { webhookCatalogueDocument } from "#core/webhooks/event-types-file";

export const handler = endpoint(listWebhookEventTypes, () => webhookCatalogueDocument());
