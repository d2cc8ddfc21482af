import { endpoint } from "#core/http/endpoint";
import { listInvitations } from "#core/http/operations/users";
import * as Users from "#core/users/index";

export const handler = endpoint(listInvitations, ({ actor, body }) => Users.listInvitations(actor, body));
