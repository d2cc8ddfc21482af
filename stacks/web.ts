import { api } from "./api.ts";
import { webDomain } from "./web-origin.ts";

/**
 * The dashboard (web/) as a static site on CloudFront + S3, built by Vite with the stage's
 * API URL. Its sign-in is a pasted access token: the local /app/dev-token does not exist here.
 */
export const web = webDomain
  ? new sst.aws.StaticSite("Web", {
      path: "web",
      build: { command: "npx vite build", output: "dist" },
      environment: { VITE_API_URL: api.url, WEB_BASE: "/" },
      domain: webDomain,
    })
  : undefined;
