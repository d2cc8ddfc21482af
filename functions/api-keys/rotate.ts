import { endpoint } from "#core/http/endpoint";
import { rotateApiKey } from "#core/http/operations/api-keys";
import { ApiKeys } from "#core/organizations/index";

export const handler = endpoint(rotateApiKey, ({ actor, params, body }) => ApiKeys.rotate(actor, params.id, body));
