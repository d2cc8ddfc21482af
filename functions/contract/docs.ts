import { apiReferencePage, pageCacheControl, pageSecurityPolicy, redocBundle } from "#core/http/api-reference";
import { publicEndpoint } from "#core/http/public-endpoint";
import { getApiReference } from "#core/http/operations/platform";
import { HttpResponse } from "#core/http/response";

export const handler = publicEndpoint(getApiReference, async () => {
  const { version } = await redocBundle();
  return HttpResponse.text(200, apiReferencePage(version), "text/html; charset=utf-8", {
    "cache-control": pageCacheControl,
    "content-security-policy": pageSecurityPolicy,
  });
});
