/**
 * Headers of every dashboard answer (HTML and assets), served locally (local/web-app.ts) and by the stage's static
 * site (stacks/web.ts): the app runs only its own scripts and styles and talks only to its API, no other site may
 * frame it (clickjacking), and no browser may sniff an asset into another type. `connectOrigins`: the other origins
 * the app calls (a stage's API Gateway URL; the identity provider, whose token endpoint the sign-in calls).
 */
export function dashboardHeaders(connectOrigins: string[] = []): Record<string, string> {
  const policy = [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    ["connect-src 'self'", ...connectOrigins.map((origin) => new URL(origin).origin)].join(" "),
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join("; ");
  return {
    "content-security-policy": policy,
    "x-frame-options": "DENY",
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
  };
}
