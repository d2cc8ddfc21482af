import { endpoint } from "#core/http/endpoint";
import { deleteSuppression } from "#core/http/operations/suppressions";
import * as SuppressionAdmin from "#core/suppressions/admin";

export const handler = endpoint(deleteSuppression, ({ actor, params }) => SuppressionAdmin.remove(actor, params.phone));
