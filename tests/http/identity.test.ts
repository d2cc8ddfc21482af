import { createPrivateKey, createSign, type JsonWebKey } from "node:crypto";
import { describe, expect, inject, it } from "vitest";
import { signUserToken } from "#core/auth/local-tokens";
import { signInLimits } from "#core/identity/sign-in-guard";
import {
  authorize,
  issuerSession,
  mailbox,
  newSignInUser,
  passwordSignIn,
  signInWithPassword,
  token,
} from "#tests/helpers/identity";
import { newOrganization, request } from "#tests/helpers/stack";

const freshIp = () =>
  `10.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}`;
const listAutomations = (accessToken: string) =>
  request("POST", "/automations/all/my", { token: accessToken, body: {}, sourceIp: freshIp() });

describe("sign-in through the identity provider (OpenAuth, code + PKCE)", () => {
  it("signs in with a password, calls the API, refreshes, and a revoked refresh token is dead", async () => {
    const organization = await newOrganization();
    const user = await newSignInUser(organization.organizationId);
    const signedIn = await signInWithPassword(user.email, user.password);
    expect(signedIn.status).toBe(200);
    const { access_token: access, refresh_token: refresh } = signedIn.body;
    expect((await listAutomations(access)).status).toBe(200);
    const claims = JSON.parse(Buffer.from(access.split(".")[1], "base64url").toString());
    expect(claims).toMatchObject({
      sub: user.userId,
      aud: "dashboard",
      properties: { org_id: organization.organizationId, role: "owner", email: user.email },
    });
    expect(claims.exp - claims.iat || claims.exp - Date.now() / 1000).toBeLessThanOrEqual(15 * 60 + 5);

    const refreshed = await token({ grant_type: "refresh_token", refresh_token: refresh });
    expect(refreshed.status).toBe(200);
    expect((await listAutomations(refreshed.body.access_token)).status).toBe(200);
    // Each refresh token works once.
    expect((await token({ grant_type: "refresh_token", refresh_token: refresh })).body.error).toBe("invalid_grant");

    const revoked = await fetch(new URL("/revoke", inject("identityUrl")), {
      method: "POST",
      body: new URLSearchParams({ token: refreshed.body.refresh_token }),
    });
    expect(revoked.status).toBe(200);
    const afterSignOut = await token({ grant_type: "refresh_token", refresh_token: refreshed.body.refresh_token });
    expect(afterSignOut.status).toBe(400);
    expect(afterSignOut.body.error).toBe("invalid_grant");
  });

  it("a code exchange needs the PKCE verifier, and a client the issuer does not know is refused", async () => {
    const organization = await newOrganization();
    const user = await newSignInUser(organization.organizationId);
    const session = issuerSession();
    await authorize(session);
    const answer = await passwordSignIn(session, user.email, user.password);
    const code = new URL(answer.location!).searchParams.get("code")!;
    const stolen = await token({
      grant_type: "authorization_code",
      code,
      redirect_uri: `${new URL(answer.location!).origin}/app/`,
      client_id: "dashboard",
      code_verifier: "not-the-verifier",
    });
    expect(stolen.status).toBe(400);

    const other = issuerSession();
    const { started } = await authorize(other, "someone-else");
    expect(started.status).toBe(400);
    expect(started.location).toBeNull();
  });

  it("signs a person without an organization in with a one-time e-mail code: a token with the e-mail and no organization", async () => {
    const session = issuerSession();
    const { verifier, state } = await authorize(session);
    await session.call("/code/authorize");
    const email = `invited-${Date.now()}@example.com`;
    const requested = await session.call("/code/authorize", { form: { action: "request", email } });
    expect(requested.status).toBe(200);
    const code = (await mailbox()).findLast((message) => message.to === email)!.code;
    const verified = await session.call("/code/authorize", { form: { action: "verify", code } });
    expect(verified.status).toBe(302);
    const back = new URL(verified.location!);
    expect(back.searchParams.get("state")).toBe(state);
    const tokens = await token({
      grant_type: "authorization_code",
      code: back.searchParams.get("code")!,
      redirect_uri: `${back.origin}/app/`,
      client_id: "dashboard",
      code_verifier: verifier,
    });
    const claims = JSON.parse(Buffer.from(tokens.body.access_token.split(".")[1], "base64url").toString());
    expect(claims.sub).toBe(`email:${email}`);
    expect(claims.properties).toEqual({ email });
    const answer = await listAutomations(tokens.body.access_token);
    expect(answer.status).toBe(403);
  });

  it("answers a known and an unknown e-mail alike, then backs off per account", async () => {
    const organization = await newOrganization();
    const user = await newSignInUser(organization.organizationId);
    const unknown = `nobody-${Date.now()}@example.com`;
    const answers: Record<string, { status: number; text: string }[]> = {};
    for (const email of [user.email, unknown]) {
      answers[email] = [];
      for (let attempt = 0; attempt <= signInLimits.freeFailures; attempt++) {
        const session = issuerSession();
        await authorize(session);
        const answer = await passwordSignIn(session, email, "wrong-password-123");
        answers[email]!.push({
          status: answer.status,
          text: answer.status === 401 ? (/data-component="form-alert"[^]*?<\/div>/.exec(answer.text)?.[0] ?? "") : "",
        });
      }
    }
    expect(answers[user.email]).toEqual(answers[unknown]);
    expect(answers[unknown]!.map((answer) => answer.status)).toEqual([
      ...Array(signInLimits.freeFailures).fill(401),
      429,
    ]);
    expect(answers[unknown]![0]!.text).toContain("E-mail or password is incorrect.");
    // Locked: even the right password waits now.
    const session = issuerSession();
    await authorize(session);
    expect((await passwordSignIn(session, user.email, user.password)).status).toBe(429);
  });

  it("limits sign-in attempts per client address", async () => {
    const session = issuerSession();
    await authorize(session);
    const statuses: number[] = [];
    for (let attempt = 0; attempt <= signInLimits.ipAttempts; attempt++) {
      statuses.push(
        (
          await session.call("/password/authorize", {
            form: { email: `spray-${attempt}@example.com`, password: "wrong-password-123" },
          })
        ).status,
      );
    }
    expect(statuses.slice(0, signInLimits.ipAttempts).every((status) => status === 401)).toBe(true);
    expect(statuses.at(-1)).toBe(429);
  });

  it("sends at most a few one-time codes per e-mail address, from any number of places", async () => {
    const email = `codes-${Date.now()}@example.com`;
    const statuses: number[] = [];
    for (let attempt = 0; attempt <= signInLimits.codesPerAccount; attempt++) {
      const session = issuerSession(); // a new address each time: only the per-address limit can stop it
      await authorize(session);
      await session.call("/code/authorize");
      statuses.push((await session.call("/code/authorize", { form: { action: "request", email } })).status);
    }
    expect(statuses).toEqual([...Array(signInLimits.codesPerAccount).fill(200), 429]);
    expect((await mailbox()).filter((message) => message.to === email)).toHaveLength(signInLimits.codesPerAccount);
  });

  it("offers no self-service registration and holds new passwords to the rules", async () => {
    const session = issuerSession();
    await authorize(session);
    expect((await session.call("/password/register")).status).toBe(404);

    const organization = await newOrganization();
    const user = await newSignInUser(organization.organizationId);
    await session.call("/password/change");
    await session.call("/password/change", { form: { action: "code", email: user.email } });
    const code = (await mailbox()).findLast((message) => message.to === user.email)!.code;
    await session.call("/password/change", { form: { action: "verify", code } });
    const short = await session.call("/password/change", {
      form: { action: "update", password: "short", repeat: "short" },
    });
    expect(short.text).toContain("Use at least 12 characters.");
    const good = "a long enough passphrase";
    expect(
      (await session.call("/password/change", { form: { action: "update", password: good, repeat: good } })).status,
    ).toBe(302);
    expect((await signInWithPassword(user.email, good)).status).toBe(200);
  });
});

describe("the API's checks of a user token", () => {
  it("refuses a token of another client (aud), of another issuer, and one naming critical header extensions", async () => {
    const organization = await newOrganization();
    const user = await newSignInUser(organization.organizationId);
    const claims = {
      organizationId: organization.organizationId,
      userId: user.userId,
      role: "owner" as const,
      name: "Aud",
    };
    const signing = inject("signing");
    expect((await listAutomations(await signUserToken(claims, signing))).status).toBe(200);
    const otherClient = await listAutomations(await signUserToken(claims, { ...signing, audience: "another-client" }));
    expect(otherClient.status).toBe(401);
    const otherIssuer = await listAutomations(
      await signUserToken(claims, { ...signing, issuer: "https://issuer.example" }),
    );
    expect(otherIssuer.status).toBe(401);

    // Signed by hand: jose itself refuses to produce a token with an extension it does not know.
    const part = (value: object) => Buffer.from(JSON.stringify(value)).toString("base64url");
    const header = part({
      alg: "RS256",
      kid: signing.privateJwk.kid,
      typ: "JWT",
      crit: ["urn:example:unknown"],
      "urn:example:unknown": true,
    });
    const now = Math.floor(Date.now() / 1000);
    const payload = part({
      org_id: organization.organizationId,
      role: "owner",
      sub: "u-crit",
      iss: signing.issuer,
      aud: "dashboard",
      iat: now,
      exp: now + 300,
    });
    const signature = createSign("RSA-SHA256")
      .update(`${header}.${payload}`)
      .sign(createPrivateKey({ key: signing.privateJwk as JsonWebKey, format: "jwk" }), "base64url");
    const critical = `${header}.${payload}.${signature}`;
    const answer = await listAutomations(critical);
    expect(answer.status).toBe(401);
    expect(answer.body.detail).toBe("The access token names critical header extensions this API does not implement.");
  });
});
