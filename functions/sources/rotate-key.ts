import { endpoint } from "#core/http/endpoint";
import { rotateSourceKey } from "#core/http/operations/sources";
import * as Sources from "#core/sources/index";

export const handler = endpoint(rotateSourceKey, ({ actor, params, body }) =>
  Sources.rotateKey(actor, params.id, body.overlapHours),
);
