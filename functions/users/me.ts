import { endpoint } from "#core/http/endpoint";
import { getCurrentUser } from "#core/http/operations/users";
import * as Users from "#core/users/index";

export const handler = endpoint(getCurrentUser, ({ actor }) => Users.me(actor));
