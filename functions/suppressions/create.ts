import { endpoint } from "#core/http/endpoint";
import { createSuppression } from "#core/http/operations/suppressions";
import { Suppressions } from "#core/suppressions/index";

export const handler = endpoint(createSuppression, ({ actor, body }) => Suppressions.create(actor, body));
