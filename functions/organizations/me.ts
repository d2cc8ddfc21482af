import { endpoint } from "#core/http/endpoint";
import { getCurrentOrganization } from "#core/http/operations/organizations";
import * as Organizations from "#core/organizations/index";

export const handler = endpoint(getCurrentOrganization, ({ actor }) => Organizations.profile(actor));
