import { audited } from "#core/http/audited";
import { endpoint } from "#core/http/endpoint";
import { createSuppression } from "#core/http/operations/suppressions";
import { Suppressions } from "#core/suppressions/index";

export const handler = endpoint(
  createSuppression,
  audited({ action: "suppression.added", resourceType: "Suppression" }, ({ actor, body }) =>
    Suppressions.create(actor, body),
  ),
);
