import { endpoint } from "#core/http/endpoint";
import { changeUserRole } from "#core/http/operations/users";
import * as Users from "#core/users/index";

export const handler = endpoint(changeUserRole, ({ actor, params, body }) =>
  Users.changeRole(actor, params.id, body.role),
);
