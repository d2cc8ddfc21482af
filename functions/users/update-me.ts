import { endpoint } from "#core/http/endpoint";
import { updateCurrentUser } from "#core/http/operations/users";
import * as Users from "#core/users/index";

export const handler = endpoint(updateCurrentUser, ({ actor, body }) => Users.updateMe(actor, body));
