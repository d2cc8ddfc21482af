/**
 * Event webhooks for integrators (docs/webhooks.md): endpoints with signing secrets, the event catalogue, and
 * deliveries fanned out from the table's stream, signed per Standard Webhooks, retried, logged and replayable.
 */
export { WebhookEndpoints } from "#core/webhooks/endpoints";
export { WebhookDeliveries } from "#core/webhooks/deliveries";
export { webhookCatalogue, webhookEventTypes } from "#core/webhooks/catalogue";
