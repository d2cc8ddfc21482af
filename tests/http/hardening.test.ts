import { request as rawHttpRequest } from "node:http";
import { importJWK, SignJWT } from "jose";
import { describe, expect, inject, it } from "vitest";
import { baseUrl, newOrganization, request } from "#tests/helpers/stack";

const freshIp = () =>
  `10.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}`;

function expectSecurityHeaders(headers: Headers | Record<string, unknown>): void {
  const get = (name: string) => (headers instanceof Headers ? headers.get(name) : headers[name]);
  expect(get("cache-control")).toBe("no-store");
  expect(get("x-content-type-options")).toBe("nosniff");
}

describe("headers on every answer", () => {
  it("sends Cache-Control: no-store and X-Content-Type-Options: nosniff on successes, problems and unknown routes", async () => {
    const organization = await newOrganization();
    const ok = await organization.request("POST", "/automations/all/my", { body: {} });
    expect(ok.status).toBe(200);
    expectSecurityHeaders(ok.headers);
    const unauthorized = await request("POST", "/automations/all/my", { body: {}, sourceIp: freshIp() });
    expect(unauthorized.status).toBe(401);
    expectSecurityHeaders(unauthorized.headers);
    const invalid = await organization.request("POST", "/automations", { body: { name: "" } });
    expect(invalid.status).toBe(400);
    expectSecurityHeaders(invalid.headers);
    const unknown = await request("GET", "/no-such-route", { sourceIp: freshIp() });
    expect(unknown.status).toBe(404);
    expectSecurityHeaders(unknown.headers);
  });
});

describe("access tokens", () => {
  it("refuses a correctly signed JWT that has no expiry with 401", async () => {
    const organization = await newOrganization();
    const signing = inject("signing");
    const token = await new SignJWT({ org_id: organization.organizationId, role: "owner", name: "Forever" })
      .setProtectedHeader({ alg: "RS256", kid: signing.privateJwk.kid, typ: "JWT" })
      .setSubject("user-forever")
      .setIssuer(signing.issuer)
      .setAudience("dashboard")
      .setIssuedAt()
      .sign(await importJWK(signing.privateJwk, "RS256"));
    const response = await request("POST", "/automations/all/my", { body: {}, token, sourceIp: freshIp() });
    expect(response.status).toBe(401);
    expect(response.headers.get("www-authenticate")).toContain('error="invalid_token"');
    expect(response.body.detail).toMatch(/expiry/);
  });
});

describe("text fields", () => {
  it("refuses NUL characters and lone surrogates with 400 and the pointer of each field", async () => {
    const organization = await newOrganization();
    const nul = await organization.request("POST", "/automations", { body: { name: "before\u0000after" } });
    expect(nul.status).toBe(400);
    expect(nul.headers.get("content-type")).toBe("application/problem+json");
    expect(nul.body.errors).toEqual([{ pointer: "/name", detail: expect.stringMatching(/NUL/) }]);

    // A lone surrogate can only arrive as a JSON escape (JSON.stringify would emit it as one).
    const loneSurrogate = await organization.request("POST", "/automations", {
      body: '{"name":"ok","description":"broken \\ud800 text"}',
      headers: { "content-type": "application/json" },
    });
    expect(loneSurrogate.status).toBe(400);
    expect(loneSurrogate.body.errors).toEqual([{ pointer: "/description", detail: expect.stringMatching(/UTF-8/) }]);

    const path = await organization.request("GET", "/automations/a%00b");
    expect(path.status).toBe(400);
    expect(path.body.errors).toEqual([{ pointer: "/path/id", detail: expect.stringMatching(/NUL/) }]);

    // A well-formed pair (an emoji) is fine.
    const emoji = await organization.request("POST", "/automations", { body: { name: "Hello \u{1F600}" } });
    expect(emoji.status).toBe(201);
  });
});

/** Sends raw bytes and reads the answer (fetch refuses to send some of these requests). */
function rawRequest(
  path: string,
  headers: Record<string, string>,
  body?: Buffer,
): Promise<{ status: number; headers: Record<string, unknown>; body: any }> {
  return new Promise((resolve, reject) => {
    const outgoing = rawHttpRequest(
      new URL(path, baseUrl()),
      { method: body ? "POST" : "GET", headers },
      (response) => {
        const chunks: Buffer[] = [];
        response.on("data", (chunk: Buffer) => chunks.push(chunk));
        response.on("end", () => {
          const text = Buffer.concat(chunks).toString("utf8");
          resolve({
            status: response.statusCode ?? 0,
            headers: response.headers,
            body: text ? JSON.parse(text) : undefined,
          });
        });
      },
    );
    outgoing.on("error", reject);
    outgoing.end(body);
  });
}

describe("the local gateway's own errors", () => {
  it("answers a body over 10 MB with 413 problem+json", async () => {
    const response = await rawRequest(
      "/automations",
      { "content-type": "application/json", "x-forwarded-for": freshIp() },
      Buffer.alloc(10 * 1024 * 1024 + 1, 0x20),
    );
    expect(response.status).toBe(413);
    expect(response.headers["content-type"]).toBe("application/problem+json");
    expect(response.body).toMatchObject({
      type: "about:blank",
      title: "Payload Too Large",
      status: 413,
      instance: "/automations",
    });
    expectSecurityHeaders(response.headers);
  });

  it("answers a query string over 60 KB with 414 problem+json", async () => {
    const response = await rawRequest(`/automations/x?search=${"a".repeat(61 * 1024)}`, {
      "x-forwarded-for": freshIp(),
    });
    expect(response.status).toBe(414);
    expect(response.headers["content-type"]).toBe("application/problem+json");
    expect(response.body).toMatchObject({ title: "URI Too Long", status: 414, instance: "/automations/x" });
    expectSecurityHeaders(response.headers);
  });

  it("answers oversized headers with 431 problem+json", async () => {
    const response = await rawRequest("/automations/x", { "x-padding": "a".repeat(20 * 1024) });
    expect(response.status).toBe(431);
    expect(response.headers["content-type"]).toBe("application/problem+json");
    expect(response.body).toMatchObject({ title: "Request Header Fields Too Large", status: 431 });
    expectSecurityHeaders(response.headers);
  });
});
