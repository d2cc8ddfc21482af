import { endpoint } from "#core/http/endpoint";
import { getSource } from "#core/http/operations/sources";
import * as Sources from "#core/sources/index";

export const handler = endpoint(getSource, ({ actor, params }) => Sources.fromId(actor, params.id));
