import { endpoint } from "#core/http/endpoint";
import { deactivateUser } from "#core/http/operations/users";
import * as Users from "#core/users/index";

export const handler = endpoint(deactivateUser, ({ actor, params }) => Users.deactivate(actor, params.id));
