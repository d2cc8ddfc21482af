import { randomUUID } from "node:crypto";
import { exportJWK, generateKeyPair, importJWK, SignJWT } from "jose";
import { describe, expect, inject, it } from "vitest";
import { signUserToken } from "#core/auth/local-tokens";
import { newOrganization, request } from "#tests/helpers/stack";

const freshIp = () =>
  `10.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}`;

describe("authentication and authorization", () => {
  it("answers a request without credentials with 401, a bare Bearer challenge and a problem body", async () => {
    const response = await request("GET", `/automations/${randomUUID()}`, { sourceIp: freshIp() });
    expect(response.status).toBe(401);
    expect(response.headers.get("content-type")).toBe("application/problem+json");
    expect(response.headers.get("www-authenticate")).toBe('Bearer realm="lead-messaging-api"');
    expect(response.body).toMatchObject({ type: "about:blank", title: "Unauthorized", status: 401 });
    expect(response.body.instance).toMatch(/^\/automations\//);
  });

  it("answers an unknown API key with 401 and error=invalid_token", async () => {
    const fakeKey = `sk_01ARZ3NDEKTSV4RRFFQ69G5FAV_${"x".repeat(43)}`;
    const response = await request("GET", "/automations/abc", { token: fakeKey, sourceIp: freshIp() });
    expect(response.status).toBe(401);
    expect(response.headers.get("www-authenticate")).toMatch(
      /^Bearer realm="lead-messaging-api", error="invalid_token"/,
    );
  });

  it("rejects a JWT signed by another key, an expired JWT and a malformed header", async () => {
    const organization = await newOrganization();
    const { privateKey } = await generateKeyPair("RS256", { extractable: true });
    const foreignJwk = { ...(await exportJWK(privateKey)), kid: "foreign", alg: "RS256" };
    const forged = await signUserToken(
      { organizationId: organization.organizationId, userId: "u1", role: "owner", name: "Mallory" },
      { privateJwk: foreignJwk, issuer: "whatever" },
    );
    const expired = await signUserToken(
      { organizationId: organization.organizationId, userId: "u2", role: "owner", name: "Old" },
      { ...inject("signing"), expiresIn: "-1m" },
    );
    for (const token of [forged, expired]) {
      const response = await request("POST", "/automations/all/my", { token, body: {}, sourceIp: freshIp() });
      expect(response.status).toBe(401);
      expect(response.headers.get("www-authenticate")).toContain('error="invalid_token"');
    }
    const malformed = await request("POST", "/automations/all/my", {
      headers: { authorization: "Basic abc" },
      body: {},
      sourceIp: freshIp(),
    });
    expect(malformed.status).toBe(401);
  });

  it("rejects a correctly signed JWT that carries no expiry", async () => {
    const organization = await newOrganization();
    const signing = inject("signing");
    const key = await importJWK(signing.privateJwk, "RS256");
    const everlasting = await new SignJWT({ org_id: organization.organizationId, role: "owner" })
      .setProtectedHeader({ alg: "RS256", kid: signing.privateJwk.kid, typ: "JWT" })
      .setSubject("u-everlasting")
      .setIssuer(signing.issuer)
      .setAudience("dashboard")
      .setIssuedAt()
      .sign(key);
    const response = await request("POST", "/automations/all/my", {
      token: everlasting,
      body: {},
      sourceIp: freshIp(),
    });
    expect(response.status).toBe(401);
    expect(response.body.detail).toBe("The access token has no expiry (exp).");
    expect(response.headers.get("www-authenticate")).toContain('error="invalid_token"');
  });

  it("rejects a valid JWT whose organization does not exist", async () => {
    const token = await signUserToken(
      { organizationId: "01NOSUCHORGANIZATION00000", userId: "u-orphan", role: "owner", name: "Orphan" },
      inject("signing"),
    );
    const response = await request("POST", "/automations/all/my", { token, body: {}, sourceIp: freshIp() });
    expect(response.status).toBe(401);
    expect(response.body.detail).toBe("The access token's organization does not exist.");
  });

  it("accepts a user JWT and an sk_ API key of the same organization", async () => {
    const organization = await newOrganization();
    for (const token of [organization.ownerToken, organization.apiKey, organization.memberToken]) {
      const response = await organization.request("POST", "/automations/all/my", { token, body: {} });
      expect(response.status).toBe(200);
      expect(response.body).toMatchObject({ items: [], pageSize: 50, totalCount: null, continuationToken: null });
    }
  });

  it("answers a member who tries to create an automation with 403", async () => {
    const organization = await newOrganization();
    const response = await organization.request("POST", "/automations", {
      token: organization.memberToken,
      body: { name: "Not allowed" },
    });
    expect(response.status).toBe(403);
    expect(response.body).toMatchObject({ status: 403, title: "Forbidden" });
  });

  it("answers a user token without an organization with 403, counted against the user partition", async () => {
    const signing = inject("signing");
    const token = await new SignJWT({ role: "owner" })
      .setProtectedHeader({ alg: "RS256", kid: signing.privateJwk.kid })
      .setSubject(`orphan-${randomUUID()}`)
      .setIssuer(signing.issuer)
      .setAudience("dashboard")
      .setIssuedAt()
      .setExpirationTime("5m")
      .sign(await importJWK(signing.privateJwk, "RS256"));
    const response = await request("POST", "/automations/all/my", { token, body: {} });
    expect(response.status).toBe(403);
    expect(response.headers.get("ratelimit-policy")).toBe('"user";q=300;w=60');
  });
});
