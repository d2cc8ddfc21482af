import { Calls } from "#core/calls/index";
import { endpoint } from "#core/http/endpoint";
import { listCallEventsByPhone } from "#core/http/operations/calls";

export const handler = endpoint(listCallEventsByPhone, ({ actor, params, body }) => Calls.listByPhone(actor, params.phoneNumber, body));
