import { listEvents } from "#core/events/list";
import { endpoint } from "#core/http/endpoint";
import { listEvents as listEventsOperation } from "#core/http/operations/events";

export const handler = endpoint(listEventsOperation, ({ actor, query, body }) => listEvents(actor, query, body));
