import type { Operation } from "#core/http/operation";
import * as a2a from "#core/http/operations/a2a";
import * as automations from "#core/http/operations/automations";
import * as billing from "#core/http/operations/billing";
import * as leads from "#core/http/operations/leads";
import * as platform from "#core/http/operations/platform";
import * as sources from "#core/http/operations/sources";

/** Every operation the API serves; the OpenAPI document and the route-table test read this list. */
export const allOperations: Operation[] = [platform, a2a, automations, sources, leads, billing].flatMap(
  (module) => Object.values(module) as Operation[],
);
