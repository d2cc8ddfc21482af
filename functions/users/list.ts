import { endpoint } from "#core/http/endpoint";
import { listUsers } from "#core/http/operations/users";
import * as Users from "#core/users/index";

export const handler = endpoint(listUsers, ({ actor, body }) => Users.list(actor, body));
