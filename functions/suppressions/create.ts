import { endpoint } from "#core/http/endpoint";
import { createSuppression } from "#core/http/operations/suppressions";
import * as SuppressionAdmin from "#core/suppressions/admin";

export const handler = endpoint(createSuppression, ({ actor, body }) => SuppressionAdmin.create(actor, body));
