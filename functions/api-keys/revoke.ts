import { endpoint } from "#core/http/endpoint";
import { revokeApiKey } from "#core/http/operations/api-keys";
import * as ApiKeys from "#core/organizations/api-keys";

export const handler = endpoint(revokeApiKey, ({ actor, params }) => ApiKeys.revoke(actor, params.id));
