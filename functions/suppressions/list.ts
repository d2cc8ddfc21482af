import { endpoint } from "#core/http/endpoint";
import { listSuppressions } from "#core/http/operations/suppressions";
import * as SuppressionAdmin from "#core/suppressions/admin";

export const handler = endpoint(listSuppressions, ({ actor, body }) => SuppressionAdmin.list(actor, body));
