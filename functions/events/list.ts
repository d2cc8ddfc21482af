import { endpoint } from "#core/http/endpoint";
import { listEvents } from "#core/http/operations/events";
import { listVisibleEvents } from "#core/messaging/event-list";

export const handler = endpoint(listEvents, ({ actor, query, body }) => listVisibleEvents(actor, query, body));
