import { endpoint } from "#core/http/endpoint";
import { updateCurrentOrganization } from "#core/http/operations/organizations";
import * as Organizations from "#core/organizations/index";

/** The change records its own audit entry, in its transaction (core/organizations/index.ts). */
export const handler = endpoint(updateCurrentOrganization, ({ actor, body }) =>
  Organizations.updateProfile(actor, body),
);
