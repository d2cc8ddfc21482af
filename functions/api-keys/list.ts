import { endpoint } from "#core/http/endpoint";
import { listApiKeys } from "#core/http/operations/api-keys";
import { ApiKeys } from "#core/organizations/index";

export const handler = endpoint(listApiKeys, ({ actor, body }) => ApiKeys.list(actor, body));
