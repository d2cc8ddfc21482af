import { endpoint } from "#core/http/endpoint";
import { listSources } from "#core/http/operations/sources";
import * as Sources from "#core/sources/index";

export const handler = endpoint(listSources, ({ actor, body }) => Sources.list(actor, body));
