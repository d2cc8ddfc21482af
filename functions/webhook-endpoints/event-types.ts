import { endpoint } from "#core/http/endpoint";
import { listWebhookEventTypes } from "#core/http/operations/webhook-endpoints";
import { webhookCatalogueEntries } from "#core/webhooks/payload-schemas";

export const handler = endpoint(listWebhookEventTypes, async () => webhookCatalogueEntries());
