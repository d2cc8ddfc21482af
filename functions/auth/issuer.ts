import { AwsClient } from "aws4fetch";
import { handle } from "hono/aws-lambda";
import { DynamoStorage } from "@openauthjs/openauth/storage/dynamo";
import { dashboardClientId } from "#core/auth/local-tokens";
import { createIssuer } from "#core/identity/issuer";

/**
 * The stage's identity provider (stacks/auth.ts, `sst.aws.Auth`): the OpenAuth issuer of core/identity,
 * on the table SST creates for it (OPENAUTH_STORAGE), sending its one-time codes with SES.
 */
const storageOptions = JSON.parse(process.env.OPENAUTH_STORAGE ?? "{}") as { options?: { table: string } };
if (!storageOptions.options?.table) throw new Error("OPENAUTH_STORAGE names no table (deploy with stacks/auth.ts).");
const sender = process.env.IDENTITY_EMAIL_FROM ?? "";
const ses = new AwsClient({
  accessKeyId: process.env.AWS_ACCESS_KEY_ID!,
  secretAccessKey: process.env.AWS_SECRET_ACCESS_KEY!,
  sessionToken: process.env.AWS_SESSION_TOKEN,
  region: process.env.AWS_REGION,
  service: "ses",
});

/** SES v2 SendEmail; the sender must be a verified SES identity of the stage's region (docs/identity.md). */
async function sendCode(email: string, code: string): Promise<void> {
  if (!sender) throw new Error("IDENTITY_EMAIL_FROM is not set: the identity provider cannot send codes.");
  const response = await ses.fetch(`https://email.${process.env.AWS_REGION}.amazonaws.com/v2/email/outbound-emails`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      FromEmailAddress: sender,
      Destination: { ToAddresses: [email] },
      Content: {
        Simple: {
          Subject: { Data: "Your sign-in code" },
          Body: { Text: { Data: `Your sign-in code is ${code}. It works once. If you did not ask for it, ignore this e-mail.` } },
        },
      },
    }),
  });
  // The address is not logged: only that SES refused (its status), so a log never lists who signs in.
  if (!response.ok) throw new Error(`SES refused to send a sign-in code (${response.status}).`);
}

const googleClientId = process.env.GOOGLE_CLIENT_ID;
const app = createIssuer({
  storage: DynamoStorage({ table: storageOptions.options.table }),
  sendCode,
  clients: { [dashboardClientId]: (process.env.IDENTITY_REDIRECT_URIS ?? "").split(/\s+/).filter(Boolean) },
  ...(googleClientId ? { google: { clientId: googleClientId } } : {}),
  behindProxy: process.env.IDENTITY_BEHIND_PROXY === "true",
});

export const handler = handle(app);
