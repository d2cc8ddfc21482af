import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startLocalIdentityProvider, type LocalIdentityProvider } from "#local/identity";
import { startOidcFake, type FakeOidcPerson, type OidcFake } from "#local/oidc-fake";
import { appRedirect, authorize, issuerSession, newSignInUser, token } from "#tests/helpers/identity";
import { applyStackEnv, baseUrl, newOrganization } from "#tests/helpers/stack";

// The stack's issuer has no upstream, so this file runs a second one (same code, same storage) with the fake as its
// upstream, the way a stage names Google.
let upstream: OidcFake;
let issuer: LocalIdentityProvider;

beforeAll(async () => {
  applyStackEnv();
  upstream = await startOidcFake();
  issuer = await startLocalIdentityProvider({
    dynamodbEndpoint: process.env.DYNAMODB_ENDPOINT!,
    appUrl: () => `${baseUrl()}/app`,
    port: 0,
    mailDir: await mkdtemp(join(tmpdir(), "upstream-mail-")),
    upstream: { name: "fake", display: "Fake OIDC", issuer: upstream.url, clientId: upstream.clientId },
  });
});

afterAll(async () => {
  await issuer?.stop();
  await upstream?.stop();
});

/** Signs in through the upstream as `person`: the issuer's redirect, the upstream's form_post, the callback. */
async function signInThroughUpstream(person: FakeOidcPerson) {
  const registered = await fetch(`${upstream.url}/__fake/person`, { method: "POST", body: JSON.stringify(person) });
  expect(registered.status).toBe(204);
  const session = issuerSession(undefined, issuer.url);
  const { verifier, state, started } = await authorize(session);
  expect(started.text).toContain("Fake OIDC");
  const toUpstream = await session.call("/fake/authorize");
  expect(toUpstream.status).toBe(302);
  expect(toUpstream.location!.startsWith(`${upstream.url}/authorize?`)).toBe(true);
  const formPost = await session.call(toUpstream.location!);
  expect(formPost.status).toBe(200);
  const action = /action="([^"]+)"/.exec(formPost.text)![1]!.replace(/&#38;/g, "&");
  const fields = Object.fromEntries(
    [...formPost.text.matchAll(/name="([^"]+)" value="([^"]*)"/g)].map(([, name, value]) => [name!, value!]),
  );
  const callback = await session.call(action, { form: fields });
  return { callback, verifier, state };
}

describe("sign-in through an OIDC upstream (OpenAuth OidcProvider against a local fake)", () => {
  it("an organization member signs in with an e-mail the upstream verified and gets a token with org_id and role", async () => {
    const organization = await newOrganization();
    const member = await newSignInUser(organization.organizationId, "admin");
    const { callback, verifier, state } = await signInThroughUpstream({
      email: member.email.toUpperCase(),
      email_verified: true,
    });
    expect(callback.status).toBe(302);
    const back = new URL(callback.location!);
    expect(`${back.origin}${back.pathname}`).toBe(appRedirect());
    expect(back.searchParams.get("state")).toBe(state);

    const [authorization] = (await (await fetch(`${upstream.url}/__fake/requests`)).json()) as Record<string, string>[];
    expect(authorization).toMatchObject({
      client_id: upstream.clientId,
      response_type: "id_token",
      response_mode: "form_post",
      scope: "openid email",
      redirect_uri: `${issuer.url}/fake/callback`,
    });
    expect(authorization!.nonce).toMatch(/.{16,}/);

    const signedIn = await token(
      {
        grant_type: "authorization_code",
        code: back.searchParams.get("code")!,
        redirect_uri: appRedirect(),
        client_id: "dashboard",
        code_verifier: verifier,
      },
      issuer.url,
    );
    expect(signedIn.status).toBe(200);
    const claims = JSON.parse(Buffer.from(signedIn.body.access_token.split(".")[1], "base64url").toString());
    expect(claims).toMatchObject({
      iss: issuer.url,
      sub: member.userId,
      aud: "dashboard",
      properties: { email: member.email, org_id: organization.organizationId, role: "admin" },
    });
  });

  it("an e-mail the upstream does not mark verified is refused: the app gets access_denied, no code", async () => {
    const organization = await newOrganization();
    const member = await newSignInUser(organization.organizationId);
    const { callback } = await signInThroughUpstream({ email: member.email, email_verified: false });
    expect(callback.status).toBe(302);
    const back = new URL(callback.location!);
    expect(`${back.origin}${back.pathname}`).toBe(appRedirect());
    expect(back.searchParams.get("error")).toBe("access_denied");
    expect(back.searchParams.has("code")).toBe(false);
  });
});
