import { endpoint } from "#core/http/endpoint";
import { getRoutingSettings } from "#core/http/operations/routing";
import * as Routing from "#core/routing/index";

export const handler = endpoint(getRoutingSettings, ({ actor }) => Routing.read(actor));
