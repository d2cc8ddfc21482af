import { endpoint } from "#core/http/endpoint";
import { revokeInvitation } from "#core/http/operations/users";
import * as Users from "#core/users/index";

export const handler = endpoint(revokeInvitation, ({ actor, params }) => Users.revokeInvitation(actor, params.id));
