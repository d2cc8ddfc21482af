import { contractDocument } from "#core/http/api-reference";
import { config } from "#core/config";
import { publicEndpoint } from "#core/http/public-endpoint";
import { getOpenApi } from "#core/http/operations/platform";

/**
 * The contract as built by `npm run openapi`, read from the function's package: the function does not rebuild it
 * from every schema of the API, nor compile it as code, at each cold start. Only the server entry is this stage's URL.
 */
export const handler = publicEndpoint(getOpenApi, async () => ({
  ...(await contractDocument()),
  servers: [{ url: config.publicBaseUrl }],
}));
