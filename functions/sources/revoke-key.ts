import { endpoint } from "#core/http/endpoint";
import { revokeSourceKey } from "#core/http/operations/sources";
import * as Sources from "#core/sources/index";

export const handler = endpoint(revokeSourceKey, ({ actor, params }) => Sources.revokeKey(actor, params.id));
