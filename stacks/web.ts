import { api } from "./api.ts";
import { auth, dashboardClientId } from "./auth.ts";
import { webDomain } from "./web-origin.ts";

/**
 * The dashboard (web/) as a static site on CloudFront + S3, built by Vite with the stage's
 * API URL and identity provider (its sign-in is the OAuth code + PKCE flow of web/src/api/session.ts).
 */
export const web = webDomain
  ? new sst.aws.StaticSite("Web", {
      path: "web",
      build: { command: "npx vite build", output: "dist" },
      environment: { VITE_API_URL: api.url, VITE_AUTH_URL: auth.url, VITE_AUTH_CLIENT_ID: dashboardClientId, WEB_BASE: "/" },
      domain: webDomain,
    })
  : undefined;
