import { api } from "./api.ts";
import { dashboardHeaders } from "./web-headers.ts";
import { webDomain } from "./web-origin.ts";

/**
 * The dashboard (web/) as a static site on CloudFront + S3, built by Vite with the stage's
 * API URL. Its sign-in is a pasted access token: the local /app/dev-token does not exist here.
 * Every answer carries the dashboard's security headers (CSP naming the API, no framing, nosniff),
 * set by the distribution's viewer-response function as the local server sets them.
 */
export const web = webDomain
  ? new sst.aws.StaticSite("Web", {
      path: "web",
      build: { command: "npx vite build", output: "dist" },
      environment: { VITE_API_URL: api.url, WEB_BASE: "/" },
      domain: webDomain,
      edge: {
        viewerResponse: {
          injection: api.url.apply((url) =>
            Object.entries(dashboardHeaders(url.replace(/\/+$/, "")))
              .map(([name, value]) => `event.response.headers[${JSON.stringify(name)}] = { value: ${JSON.stringify(value)} };`)
              .join("\n"),
          ),
        },
      },
    })
  : undefined;
