import { config } from "#core/config";
import { endpoint } from "#core/http/endpoint";
import { openApiDocument } from "#core/http/openapi";
import { getOpenApi } from "#core/http/operations/platform";

export const handler = endpoint(getOpenApi, async () => openApiDocument(config.publicBaseUrl));
