import { endpoint } from "#core/http/endpoint";
import { setRoutingAway } from "#core/http/operations/routing";
import * as Routing from "#core/routing/index";

export const handler = endpoint(setRoutingAway, ({ actor, params, body }) =>
  Routing.setAway(actor, params.userId, body),
);
