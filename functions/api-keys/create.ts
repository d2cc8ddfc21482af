import { endpoint } from "#core/http/endpoint";
import { createApiKey } from "#core/http/operations/api-keys";
import { ApiKeys } from "#core/organizations/index";

export const handler = endpoint(createApiKey, ({ actor, body }) => ApiKeys.create(actor, body));
