import { endpoint } from "#core/http/endpoint";
import { deleteSuppression } from "#core/http/operations/suppressions";
import { Suppressions } from "#core/suppressions/index";

export const handler = endpoint(deleteSuppression, ({ actor, params }) => Suppressions.remove(actor, params.phone));
