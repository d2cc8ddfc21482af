import { describe, expect, it } from "vitest";
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

  it("offers no development token when the stack did not provision one (tests, like deployed stages)", async () => {
    const token = await request("GET", "/app/dev-token");
    expect(token.status).toBe(204);
    expect(token.body).toBe("");
  });

  it("never serves files outside the build", async () => {
    const escaped = await request("GET", "/app/..%2F..%2Fpackage.json");
    expect(escaped.body).not.toContain("lead-messaging-api");
  });
});
