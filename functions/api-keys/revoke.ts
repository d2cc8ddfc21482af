import { endpoint } from "#core/http/endpoint";
import { revokeApiKey } from "#core/http/operations/api-keys";
import { ApiKeys } from "#core/organizations/index";

export const handler = endpoint(revokeApiKey, ({ actor, params }) => ApiKeys.revoke(actor, params.id));
