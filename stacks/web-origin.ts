/**
 * The dashboard's domain on a stage (`WEB_DOMAIN=dashboard.example.com sst deploy`). The site is
 * deployed only with a domain: the API's CORS must name the app's origin before the site exists,
 * and a CloudFront hostname is only known after it is created (the site also needs the API's URL).
 */
export const webDomain: string | undefined = process.env.WEB_DOMAIN || undefined;

/** CORS of the HTTP API: exactly the dashboard's origin, or none (no browser app on this stage). */
export function apiCors(domain: string | undefined = webDomain) {
  if (!domain) return false as const;
  return {
    allowOrigins: [`https://${domain}`],
    allowMethods: (["GET", "POST", "PUT", "DELETE"] as const).slice(),
    allowHeaders: ["authorization", "content-type", "idempotency-key"],
    exposeHeaders: ["content-disposition", "ratelimit", "ratelimit-policy", "retry-after"],
    maxAge: "1 hour" as const,
  };
}
