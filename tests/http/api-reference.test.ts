import { describe, expect, it } from "vitest";
import { baseUrl, request } from "#tests/helpers/stack";

describe("GET /docs: the API reference page (issue 14 §1)", () => {
  it("serves an HTML page that loads only same-origin assets, cacheable because it holds no personal data", async () => {
    const page = await request("GET", "/docs");
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(page.headers.get("cache-control")).toBe("public, max-age=300");
    expect(page.headers.get("x-content-type-options")).toBe("nosniff");
    // The browser may fetch nothing from another origin while showing it.
    const policy = page.headers.get("content-security-policy")!;
    expect(policy).toContain("default-src 'none'");
    expect(policy).toContain("script-src 'self'");
    expect(policy).toContain("connect-src 'self'");

    const html = page.body as string;
    const references = [...html.matchAll(/\b(?:src|href|spec-url)="([^"]+)"/g)].map((match) => match[1]!);
    expect(references).toHaveLength(2);
    for (const reference of references)
      expect(new URL(reference, new URL("/docs", baseUrl())).origin).toBe(new URL(baseUrl()).origin);
    expect(html).not.toMatch(/https?:\/\//);

    // Each reference resolves, with its right content type.
    const resolved = references.map((reference) => new URL(reference, new URL("/docs", baseUrl())));
    const spec = resolved.find((url) => url.pathname === "/openapi.json")!;
    const contract = await request("GET", spec.pathname + spec.search);
    expect(contract.status).toBe(200);
    expect(contract.headers.get("content-type")).toMatch(/^application\/json/);
    expect(contract.body.openapi).toMatch(/^3\.1/);

    const script = resolved.find((url) => url.pathname === "/docs/redoc.standalone.js")!;
    expect(script.searchParams.get("v")).toMatch(/^[0-9a-f]{16}$/);
    const bundle = await request("GET", script.pathname + script.search);
    expect(bundle.status).toBe(200);
    expect(bundle.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    expect(bundle.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    expect(bundle.body).toContain("Redoc");
  });

  it("needs no credentials and counts against the caller's IP like other public routes", async () => {
    const page = await request("GET", "/docs", { token: null });
    expect(page.status).toBe(200);
    expect(page.headers.get("ratelimit")).toMatch(/^"ip";r=\d+;t=\d+$/);
  });
});
