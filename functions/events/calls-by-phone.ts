import * as CallQueries from "#core/calls/queries";
import { endpoint } from "#core/http/endpoint";
import { listCallEventsByPhone } from "#core/http/operations/calls";

export const handler = endpoint(listCallEventsByPhone, ({ actor, params, body }) =>
  CallQueries.listByPhone(actor, params.phoneNumber, body),
);
