import type { Actor } from "#core/auth/actor";
import { NotFoundError, ValidationError } from "#core/errors";
import * as Events from "#core/events/index";
import { publishAll, type Envelope } from "#core/queue/messages";
import { webhookTypeOf } from "#core/webhooks/catalogue";
import { createDelivery, type ReplayRequest, type ReplayResult } from "#core/webhooks/delivery-log";
import * as WebhookEndpoints from "#core/webhooks/endpoints";
import { type StoredEndpoint } from "#core/webhooks/endpoints";
import { eventPayload } from "#core/webhooks/payloads";

/** Events one "replay since" request re-sends; the answer says where to continue. */
const replayBatch = 500;

/** Sending past events to an endpoint again. */

/** `POST /webhook-endpoints/{id}/replay`. */
export async function replay(actor: Actor, endpointId: string, request: ReplayRequest): Promise<ReplayResult> {
  const endpoint = await WebhookEndpoints.stored(actor.organizationId, endpointId);
  if (!endpoint) throw new NotFoundError("Webhook endpoint", endpointId);
  if ("eventId" in request) {
    const event = await Events.find(actor.organizationId, request.eventId);
    if (!event) throw new NotFoundError("Event", request.eventId);
    const type = webhookTypeOf(event.eventType);
    if (!type)
      throw new ValidationError("This event type is not delivered by webhooks.", [
        { pointer: "/eventId", detail: `${event.eventType} has no webhook type (GET /webhook-event-types).` },
      ]);
    const queued = await createDelivery(
      actor.organizationId,
      endpointId,
      await eventPayload(actor.organizationId, type, event),
      "Replay",
    );
    await publishAll([{ envelope: queued! }]);
    return { replayed: 1, continueFrom: null };
  }
  return replaySince(actor.organizationId, endpoint, request.since);
}

async function replaySince(organizationId: string, endpoint: StoredEndpoint, since: string): Promise<ReplayResult> {
  const messages: Envelope[] = [];
  let continueFrom: string | null = null;
  let last: string | undefined;
  scan: for await (const events of Events.createdWithin(organizationId, Date.parse(since), Date.now())) {
    for (const event of events) {
      const type = webhookTypeOf(event.eventType);
      if (!type || (endpoint.enabledEventTypes !== "all" && !endpoint.enabledEventTypes.includes(type))) continue;
      if (messages.length === replayBatch) {
        // Events of the same millisecond as the last one sent are sent again by the next request (same webhook-id).
        continueFrom = last ?? event.createdAt;
        break scan;
      }
      const queued = await createDelivery(
        organizationId,
        endpoint.id,
        await eventPayload(organizationId, type, event),
        "Replay",
      );
      if (queued) messages.push(queued);
      last = event.createdAt;
    }
  }
  await publishAll(messages.map((message) => ({ envelope: message })));
  return { replayed: messages.length, continueFrom };
}
