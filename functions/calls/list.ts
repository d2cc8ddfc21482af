import * as CallQueries from "#core/calls/queries";
import { endpoint } from "#core/http/endpoint";
import { listCalls } from "#core/http/operations/calls";

export const handler = endpoint(listCalls, ({ actor, body }) => CallQueries.list(actor, body));
