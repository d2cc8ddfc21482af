import * as CallQueries from "#core/calls/queries";
import { endpoint } from "#core/http/endpoint";
import { getCall } from "#core/http/operations/calls";

export const handler = endpoint(getCall, ({ actor, params }) => CallQueries.fromId(actor, params.id));
