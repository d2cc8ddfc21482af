import { describe, expect, inject, it } from "vitest";
import { request } from "#tests/helpers/stack";

/** The local stack serves the built dashboard at /app (local/web-app.ts); the global setup built it. */
describe("GET /app", () => {
  it("serves the app's page and its scripts", async () => {
    const page = await request("GET", "/app/");
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toBe("text/html; charset=utf-8");
    const script = /src="\/app\/(assets\/[^"]+\.js)"/.exec(page.body)?.[1];
    expect(script).toBeDefined();
    const asset = await request("GET", `/app/${script}`);
    expect(asset.status).toBe(200);
    expect(asset.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
  });

  it("tells the app its identity provider, and hands out no token (signing in is the OAuth flow)", async () => {
    const identity = await request("GET", "/app/identity.json");
    expect(identity.status).toBe(200);
    expect(identity.body).toEqual({ issuer: inject("identityUrl"), clientId: "dashboard" });
    const token = await request("GET", "/app/dev-token");
    expect(token.body).not.toMatch(/eyJ/);
  });

  it("never serves files outside the build", async () => {
    const escaped = await request("GET", "/app/..%2F..%2Fpackage.json");
    expect(escaped.body).not.toContain("lead-messaging-api");
  });
});
