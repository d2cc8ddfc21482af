import { endpoint } from "#core/http/endpoint";
import { createInvitation } from "#core/http/operations/users";
import * as Users from "#core/users/index";

export const handler = endpoint(createInvitation, ({ actor, body }) => Users.invite(actor, body));
