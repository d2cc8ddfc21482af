import { endpoint } from "#core/http/endpoint";
import { signUp } from "#core/http/operations/users";
import * as Users from "#core/users/index";

export const handler = endpoint(signUp, ({ identity, body }) => Users.signUp(identity, body));
