import { entities } from "#core/db/keys";
import { toEventRecord } from "#core/events/index";
import { toLead } from "#core/leads/reads";
import { publishAll, type Envelope } from "#core/queue/messages";
import { pingEventType, webhookTypeOf } from "#core/webhooks/catalogue";
import { createDelivery } from "#core/webhooks/delivery-log";
import * as WebhookEndpoints from "#core/webhooks/endpoints";
import { type StoredEndpoint } from "#core/webhooks/endpoints";
import { eventPayload, leadReceivedPayload, type WebhookPayload } from "#core/webhooks/payloads";

// The fan-out consumer builds payloads (reading every kind of resource) but never sends: apart from attempt.ts.

/** Table stream items become deliveries. */

/**
 * New table items from the stream (events, and leads for `lead.received`) become one delivery per enabled endpoint
 * that takes their type. Safe to run again on the same items: a delivery already sent is not sent again.
 */
export async function fanOut(items: Record<string, unknown>[]): Promise<void> {
  const byOrganization = new Map<string, Record<string, unknown>[]>();
  // Only items some endpoint could take are looked at: an event no webhook type carries (a message entering
  // Sending, say) costs no read of the organization's endpoints.
  for (const item of items.filter(mayBeDelivered)) {
    const organizationId = String(item.organizationId ?? "");
    byOrganization.set(organizationId, [...(byOrganization.get(organizationId) ?? []), item]);
  }
  const messages: Envelope[] = [];
  for (const [organizationId, organizationItems] of byOrganization) {
    if (!organizationId) continue;
    const endpoints = (await WebhookEndpoints.forFanOut(organizationId)).filter((endpoint) => endpoint.enabled);
    if (endpoints.length === 0) continue;
    for (const item of organizationItems) {
      const payload = await payloadOfItem(organizationId, item, endpoints);
      if (!payload) continue;
      for (const endpoint of endpoints) {
        if (payload.type !== pingEventType && !WebhookEndpoints.accepts(endpoint, payload.type)) continue;
        const queued = await createDelivery(organizationId, endpoint.id, payload, "Event");
        if (queued) messages.push(queued);
      }
    }
  }
  await publishInParallel(messages);
}

/** Publishes SQS batches of ten side by side (a fan-out of a full stream batch is hundreds of messages). */
async function publishInParallel(messages: Envelope[]): Promise<void> {
  const chunks = Array.from({ length: Math.ceil(messages.length / 10) }, (_, index) =>
    messages.slice(index * 10, index * 10 + 10),
  );
  await Promise.all(chunks.map((chunk) => publishAll(chunk.map((message) => ({ envelope: message })))));
}

/** A new lead, or an event some webhook type carries. */
function mayBeDelivered(item: Record<string, unknown>): boolean {
  if (item.entity === entities.lead) return true;
  return item.entity === entities.event && webhookTypeOf(toEventRecord(item).eventType) !== undefined;
}

async function payloadOfItem(
  organizationId: string,
  item: Record<string, unknown>,
  endpoints: StoredEndpoint[],
): Promise<WebhookPayload | undefined> {
  if (item.entity === entities.lead) {
    return endpoints.some((endpoint) => WebhookEndpoints.accepts(endpoint, "lead.received"))
      ? leadReceivedPayload(toLead(item))
      : undefined;
  }
  if (item.entity !== entities.event) return undefined;
  const event = toEventRecord(item);
  const type = webhookTypeOf(event.eventType);
  if (!type || !endpoints.some((endpoint) => WebhookEndpoints.accepts(endpoint, type))) return undefined;
  return eventPayload(organizationId, type, event);
}
