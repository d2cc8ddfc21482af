import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { text } from "node:stream/consumers";
import * as v from "valibot";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MailUnavailableError } from "#core/errors";
import { signInCodeMail } from "#core/identity/issuer";
import { sendMail } from "#core/mail/index";
import * as Users from "#core/users/index";
import { ListInvitationsSchema } from "#core/users/index";
import { operatorActor } from "#local/provision";
import { environmentNames } from "#stacks/definitions";
import { applyStackEnv, newOrganization } from "#tests/helpers/stack";

applyStackEnv();

/**
 * The mail port on a deployed stage: SES v2 SendEmail signed with the function's credentials, here against a local
 * fake of SES that records each request and answers what the test scripts. The issuer's sign-in codes and the API's
 * invitations go through this one sender.
 */
const received: { method: string; path: string; headers: IncomingHttpHeaders; body: any }[] = [];
let answerStatus = 200;
const fake = createServer((request, response) => {
  void text(request).then((body) => {
    received.push({ method: request.method!, path: request.url!, headers: request.headers, body: JSON.parse(body) });
    response.writeHead(answerStatus, { "content-type": "application/json" });
    response.end(
      answerStatus === 200
        ? JSON.stringify({ MessageId: "fake-message-id" })
        : JSON.stringify({ message: "Email address is not verified." }),
    );
  });
});

const deployedEnv = {
  [environmentNames.mailFrom]: "no-reply@example.com",
  AWS_REGION: "us-east-1",
  AWS_ACCESS_KEY_ID: "AKIDFUNCTIONROLE",
  AWS_SECRET_ACCESS_KEY: "function-role-secret",
  AWS_SESSION_TOKEN: "function-role-session",
};
const saved: Record<string, string | undefined> = {};
/** Made before the stage's settings apply: newOrganization applies the local stack's (its mailbox folder included). */
let org: Awaited<ReturnType<typeof newOrganization>>;

beforeAll(async () => {
  org = await newOrganization();
  await new Promise<void>((resolve) => fake.listen(0, "127.0.0.1", resolve));
  const settings = {
    ...deployedEnv,
    [environmentNames.sesEndpoint]: `http://127.0.0.1:${(fake.address() as AddressInfo).port}`,
    [environmentNames.localMailDir]: undefined,
  };
  for (const [name, value] of Object.entries(settings)) {
    saved[name] = process.env[name];
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
});

afterAll(async () => {
  for (const [name, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  await new Promise<void>((resolve) => fake.close(() => resolve()));
});

describe("the mail port on a deployed stage (SES)", () => {
  it("sends a sign-in code as one SES v2 SendEmail from the stage's sender, signed with the function's credentials", async () => {
    received.length = 0;
    await sendMail(signInCodeMail("pat@example.com", "123456"));
    expect(received).toHaveLength(1);
    const [call] = received;
    expect(call).toMatchObject({ method: "POST", path: "/v2/email/outbound-emails" });
    expect(call!.headers["content-type"]).toBe("application/json");
    expect(call!.headers.authorization).toMatch(
      /^AWS4-HMAC-SHA256 Credential=AKIDFUNCTIONROLE\/\d{8}\/us-east-1\/ses\/aws4_request, SignedHeaders=[a-z0-9;-]+, Signature=[0-9a-f]{64}$/,
    );
    expect(call!.headers["x-amz-security-token"]).toBe("function-role-session");
    expect(call!.body).toEqual({
      FromEmailAddress: "no-reply@example.com",
      Destination: { ToAddresses: ["pat@example.com"] },
      Content: {
        Simple: {
          Subject: { Data: "Your sign-in code" },
          Body: {
            Text: {
              Data: "Your sign-in code is 123456. It works once. If you did not ask for it, ignore this e-mail.",
            },
          },
        },
      },
    });
  });

  it("e-mails an invitation's link through SES; when SES refuses, the invite answers mail_unavailable and stores nothing", async () => {
    const actor = operatorActor(org.organizationId);
    received.length = 0;
    const invitation = await Users.invite(actor, { email: "dana@example.com", role: "agent", expiresInHours: 72 });
    expect(received).toHaveLength(1);
    expect(received[0]!.body.Destination).toEqual({ ToAddresses: ["dana@example.com"] });
    expect(received[0]!.body.Content.Simple.Body.Text.Data).toMatch(
      new RegExp(`/app/#/invitation/inv_${org.organizationId}_${invitation.id}_[A-Za-z0-9_-]{43}$`),
    );

    answerStatus = 400;
    try {
      const refused = await Users.invite(actor, { email: "lee@example.com", role: "agent", expiresInHours: 72 }).catch(
        (error: unknown) => error,
      );
      expect(refused).toBeInstanceOf(MailUnavailableError);
      expect((refused as Error).message).toBe("SES refused to send the e-mail (400).");
    } finally {
      answerStatus = 200;
    }
    const listed = await Users.listInvitations(actor, v.parse(ListInvitationsSchema, {}));
    expect(listed.items.map((item) => item.email)).toEqual(["dana@example.com"]);
  });

  it("refuses to send (mail_unavailable) on a stage without a sender, rather than drop the e-mail", async () => {
    delete process.env[environmentNames.mailFrom];
    try {
      await expect(sendMail({ to: "pat@example.com", subject: "s", text: "t" })).rejects.toBeInstanceOf(
        MailUnavailableError,
      );
    } finally {
      process.env[environmentNames.mailFrom] = deployedEnv[environmentNames.mailFrom];
    }
  });
});
