import { endpoint } from "#core/http/endpoint";
import { updateSource } from "#core/http/operations/sources";
import * as Sources from "#core/sources/index";

export const handler = endpoint(updateSource, ({ actor, params, body }) => Sources.update(actor, params.id, body));
