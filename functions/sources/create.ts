import { endpoint } from "#core/http/endpoint";
import { createSource } from "#core/http/operations/sources";
import * as Sources from "#core/sources/index";

export const handler = endpoint(createSource, ({ actor, body }) => Sources.create(actor, body));
