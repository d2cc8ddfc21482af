import { endpoint } from "#core/http/endpoint";
import { createApiKey } from "#core/http/operations/api-keys";
import * as ApiKeys from "#core/organizations/api-keys";

export const handler = endpoint(createApiKey, ({ actor, body }) => ApiKeys.create(actor, body));
