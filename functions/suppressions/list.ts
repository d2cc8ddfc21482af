import { endpoint } from "#core/http/endpoint";
import { listSuppressions } from "#core/http/operations/suppressions";
import { Suppressions } from "#core/suppressions/index";

export const handler = endpoint(listSuppressions, ({ actor, body }) => Suppressions.list(actor, body));
