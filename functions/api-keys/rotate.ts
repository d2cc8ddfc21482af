import { endpoint } from "#core/http/endpoint";
import { rotateApiKey } from "#core/http/operations/api-keys";
import * as ApiKeys from "#core/organizations/api-keys";

export const handler = endpoint(rotateApiKey, ({ actor, params, body }) => ApiKeys.rotate(actor, params.id, body));
