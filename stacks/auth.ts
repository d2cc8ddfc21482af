import { environmentNames } from "./definitions.ts";
import { lambdaOnlyRole } from "./roles.ts";
import { table } from "./table.ts";
import { webDomain } from "./web-origin.ts";

/**
 * The identity provider (docs/identity.md): SST's OpenAuth component, the issuer of every user token the
 * API accepts. Its own DynamoDB table (created by the component) holds passwords, codes and refresh tokens.
 *
 * Per stage, from the deploying shell:
 * - `IDENTITY_DOMAIN=auth.example.com`: its custom domain (Route 53); unset means the function URL;
 * - `IDENTITY_EMAIL_FROM=no-reply@example.com`: a verified SES identity the one-time codes are sent from;
 * - an OIDC upstream (docs/identity.md): the secret `GoogleClientId` adds Google sign-in; for another OpenID provider,
 *   `IDENTITY_OIDC_ISSUER=https://…` (with `IDENTITY_OIDC_NAME`, `IDENTITY_OIDC_DISPLAY`) and the secret `OidcClientId`.
 */
const identityDomain = process.env.IDENTITY_DOMAIN || undefined;
export const googleClientId = new sst.Secret("GoogleClientId", "");
export const oidcClientId = new sst.Secret("OidcClientId", "");
const oidcUpstream = {
  IDENTITY_OIDC_ISSUER: process.env.IDENTITY_OIDC_ISSUER ?? "",
  IDENTITY_OIDC_NAME: process.env.IDENTITY_OIDC_NAME ?? "",
  IDENTITY_OIDC_DISPLAY: process.env.IDENTITY_OIDC_DISPLAY ?? "",
};

/** The stage's e-mail sender (docs/identity.md), from the deploying shell; unset, the mail port refuses to send. */
export const mailFrom = process.env[environmentNames.mailFrom] ?? "";

/**
 * SES v2 SendEmail, for the issuer and every function that sends mail (`sendsMail`). Its resources are the sender's
 * identity and, in the SES sandbox, each recipient's, so it is not narrowed to one identity ARN; the condition keeps
 * the function to the stage's own sender address.
 */
export const sendMailGrant = {
  actions: ["ses:SendEmail"],
  resources: ["*"],
  conditions: [{ test: "StringEquals", variable: "ses:FromAddress", values: [mailFrom] }],
};

/** The dashboard's OAuth client id (core/auth/local-tokens.ts `dashboardClientId`); tokens name it in `aud`. */
export const dashboardClientId = "dashboard";

export const auth = new sst.aws.Auth("Identity", {
  issuer: {
    handler: "functions/auth/issuer.handler",
    runtime: "nodejs22.x",
    architecture: "arm64",
    memory: "1024 MB",
    timeout: "20 seconds",
    environment: {
      [environmentNames.tableName]: table.name,
      [environmentNames.mailFrom]: mailFrom,
      // The dashboard's sign-in comes back to its root (WEB_BASE "/" in stacks/web.ts).
      IDENTITY_REDIRECT_URIS: webDomain ? `https://${webDomain}/` : "",
      // core/identity/issuer.ts upstreamFromEnvironment: a named OIDC upstream wins over Google.
      GOOGLE_CLIENT_ID: googleClientId.value,
      OIDC_CLIENT_ID: oidcClientId.value,
      ...oidcUpstream,
      // With a domain, SST's CloudFront router fronts the issuer: sign-in limits count the address it forwards.
      IDENTITY_BEHIND_PROXY: identityDomain ? "true" : "false",
    },
    permissions: [
      // Users.forSignIn reads the user with the e-mail that signed in.
      { actions: ["dynamodb:GetItem", "dynamodb:Query"], resources: [table.arn, $interpolate`${table.arn}/index/*`] },
      sendMailGrant,
    ],
    transform: lambdaOnlyRole(),
  },
  ...(identityDomain ? { domain: identityDomain } : {}),
});
