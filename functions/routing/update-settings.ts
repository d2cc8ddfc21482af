import { endpoint } from "#core/http/endpoint";
import { updateRoutingSettings } from "#core/http/operations/routing";
import * as Routing from "#core/routing/index";

export const handler = endpoint(updateRoutingSettings, ({ actor, body }) => Routing.replace(actor, body));
