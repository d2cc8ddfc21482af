import { handle } from "hono/aws-lambda";
import { DynamoStorage } from "@openauthjs/openauth/storage/dynamo";
import { dashboardClientId } from "#core/auth/local-tokens";
import { createIssuer, upstreamFromEnvironment } from "#core/identity/issuer";
import { sendMail } from "#core/mail/index";

/**
 * The stage's identity provider (stacks/auth.ts, `sst.aws.Auth`): the OpenAuth issuer of core/identity,
 * on the table SST creates for it (OPENAUTH_STORAGE), sending its one-time codes with SES through the mail port
 * (core/mail, from IDENTITY_EMAIL_FROM, a verified SES identity of the stage's region: docs/identity.md).
 */
const storageOptions = JSON.parse(process.env.OPENAUTH_STORAGE ?? "{}") as { options?: { table: string } };
if (!storageOptions.options?.table) throw new Error("OPENAUTH_STORAGE names no table (deploy with stacks/auth.ts).");

const app = createIssuer({
  storage: DynamoStorage({ table: storageOptions.options.table }),
  sendMail,
  clients: { [dashboardClientId]: (process.env.IDENTITY_REDIRECT_URIS ?? "").split(/\s+/).filter(Boolean) },
  upstream: upstreamFromEnvironment(process.env),
  behindProxy: process.env.IDENTITY_BEHIND_PROXY === "true",
});

export const handler = handle(app);
