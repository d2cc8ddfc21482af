import { Calls } from "#core/calls/index";
import { endpoint } from "#core/http/endpoint";
import { getCall } from "#core/http/operations/calls";

export const handler = endpoint(getCall, ({ actor, params }) => Calls.fromId(actor, params.id));
