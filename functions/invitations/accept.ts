import { endpoint } from "#core/http/endpoint";
import { acceptInvitation } from "#core/http/operations/users";
import * as Users from "#core/users/index";

/** The identity is guaranteed by the operation's `identity` auth; its e-mail must be the invited one. */
export const handler = endpoint(acceptInvitation, ({ identity, body }) =>
  Users.acceptInvitation(body.token, { email: identity?.email ?? "", name: identity?.name }),
);
