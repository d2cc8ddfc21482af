import { audited } from "#core/http/audited";
import { endpoint } from "#core/http/endpoint";
import { deleteSuppression } from "#core/http/operations/suppressions";
import { Suppressions } from "#core/suppressions/index";

export const handler = endpoint(
  deleteSuppression,
  audited({ action: "suppression.removed", resourceType: "Suppression" }, ({ actor, params }) =>
    Suppressions.remove(actor, params.phone),
  ),
);
