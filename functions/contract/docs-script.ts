import { redocBundle, scriptCacheControl } from "#core/http/api-reference";
import { publicEndpoint } from "#core/http/public-endpoint";
import { getApiReferenceScript } from "#core/http/operations/platform";
import { HttpResponse } from "#core/http/response";

export const handler = publicEndpoint(getApiReferenceScript, async () => {
  const { script } = await redocBundle();
  return HttpResponse.text(200, script, "text/javascript; charset=utf-8", { "cache-control": scriptCacheControl });
});
