import { endpoint } from "#core/http/endpoint";
import { getRoutingAway } from "#core/http/operations/routing";
import * as Routing from "#core/routing/index";

export const handler = endpoint(getRoutingAway, ({ actor, params }) => Routing.away(actor, params.userId));
