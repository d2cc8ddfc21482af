import { api } from "./api.ts";
import { auth, dashboardClientId } from "./auth.ts";
import { dashboardHeaders } from "./web-headers.ts";
import { webDomain } from "./web-origin.ts";

/**
 * The dashboard (web/) as a static site on CloudFront + S3, built by Vite with the stage's
 * API URL and identity provider (its sign-in is the OAuth code + PKCE flow of web/src/api/session.ts).
 * Every answer carries the dashboard's security headers (CSP naming the API and the identity provider, no framing,
 * nosniff), set by the distribution's viewer-response function as the local server sets them.
 */
export const web = webDomain
  ? new sst.aws.StaticSite("Web", {
      path: "web",
      build: { command: "npx vite build", output: "dist" },
      environment: {
        VITE_API_URL: api.url,
        VITE_AUTH_URL: auth.url,
        VITE_AUTH_CLIENT_ID: dashboardClientId,
        WEB_BASE: "/",
      },
      domain: webDomain,
      edge: {
        viewerResponse: {
          injection: $util.all([api.url, auth.url]).apply((origins) =>
            Object.entries(dashboardHeaders(origins))
              .map(
                ([name, value]) =>
                  `event.response.headers[${JSON.stringify(name)}] = { value: ${JSON.stringify(value)} };`,
              )
              .join("\n"),
          ),
        },
      },
    })
  : undefined;
