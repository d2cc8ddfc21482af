import { endpoint } from "#core/http/endpoint";
import { listApiKeys } from "#core/http/operations/api-keys";
import * as ApiKeys from "#core/organizations/api-keys";

export const handler = endpoint(listApiKeys, ({ actor, body }) => ApiKeys.list(actor, body));
