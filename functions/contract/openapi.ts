import contract from "../../docs/openapi.json" with { type: "json" };
import { config } from "#core/config";
import { endpoint } from "#core/http/endpoint";
import { getOpenApi } from "#core/http/operations/platform";

/**
 * The contract as built by `npm run openapi` (a test fails when docs/openapi.json
 * is stale), bundled as data: the function does not rebuild it from every
 * schema of the API at each cold start. Only the server entry is this stage's URL.
 */
export const handler = endpoint(getOpenApi, async () => ({ ...contract, servers: [{ url: config.publicBaseUrl }] }));
