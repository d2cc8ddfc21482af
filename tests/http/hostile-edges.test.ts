import { describe, expect, it } from "vitest";
import { get } from "node:http";
import { addNumber, randomNumber } from "#tests/helpers/messaging";
import { applyStackEnv, baseUrl, newOrganization, request } from "#tests/helpers/stack";

const days = (count: number) => new Date(Date.now() + count * 86_400_000).toISOString();

describe("hostile edges are answered with a 4xx", () => {
  applyStackEnv();

  it("a JSON body nested 4,000 deep (8 KB) is a 400, not a 500, and nothing is stored", async () => {
    const org = await newOrganization();
    const deep = `${"[".repeat(4_000)}${"]".repeat(4_000)}`;
    const answer = await org.request("POST", "/leads", {
      body: `{"contact":{"firstName":"Deep"},"customer":${deep}}`,
      headers: { "content-type": "application/json" },
    });
    expect(answer.status).toBe(400);
    expect(answer.body.detail).toMatch(/nested too deeply/);
    expect((await org.request("POST", "/leads/all/my", { body: {} })).body).toMatchObject({ items: [] });
  });

  it("bytes that are not UTF-8 are a 400, never stored as U+FFFD", async () => {
    const org = await newOrganization();
    const body = Buffer.concat([
      Buffer.from('{"contact":{"firstName":"Ma'),
      Buffer.from([0xff, 0xfe]),
      Buffer.from('x"}}'),
    ]);
    const answer = await org.request("POST", "/leads", {
      body: new Uint8Array(body),
      headers: { "content-type": "application/json" },
    });
    expect(answer.status).toBe(400);
    expect(answer.body.detail).toMatch(/not valid UTF-8/);
    expect((await org.request("POST", "/leads/all/my", { body: {} })).body).toMatchObject({ items: [] });
  });

  it("scheduledFor more than 30 days ahead (or in year 9999) is a 400; 29 days ahead is accepted", async () => {
    const org = await newOrganization();
    await addNumber(org);
    for (const scheduledFor of [days(400), "9999-12-31T00:00:00Z", days(31)]) {
      const refused = await org.request("POST", "/messages", {
        body: { to: randomNumber(), body: "later", scheduledFor },
      });
      expect(refused.status).toBe(400);
      expect(refused.body.errors).toEqual([expect.objectContaining({ pointer: "/scheduledFor" })]);
    }
    expect(
      (await org.request("POST", "/messages", { body: { to: randomNumber(), body: "later", scheduledFor: days(29) } }))
        .status,
    ).toBe(202);
  });
});

describe("the dashboard may not be framed, sniffed or read from another site", () => {
  it("its page and its assets carry a CSP with frame-ancestors 'none', X-Frame-Options DENY and nosniff", async () => {
    const page = await request("GET", "/app/");
    const script = /src="\/app\/(assets\/[^"]+\.js)"/.exec(page.body)?.[1];
    for (const answer of [page, await request("GET", `/app/${script}`), await request("GET", "/app/dev-token")]) {
      expect(answer.headers.get("content-security-policy")).toMatch(/(^|; )frame-ancestors 'none'(;|$)/);
      expect(answer.headers.get("content-security-policy")).toMatch(/(^|; )script-src 'self'(;|$)/);
      expect(answer.headers.get("x-frame-options")).toBe("DENY");
      expect(answer.headers.get("x-content-type-options")).toBe("nosniff");
    }
  });

  it("hands no token to any page (a DNS-rebinding page names its own host): the dashboard signs in at the identity provider", async () => {
    for (const host of ["localhost:3000", "attacker.example:3000"]) {
      const answer = await getWithHost(new URL("/app/dev-token", baseUrl()), host);
      expect(answer.contentType).toMatch(/^text\/html/);
      expect(answer.body).not.toMatch(/eyJ[\w-]+\.[\w-]+\./);
    }
    // The sign-in calls the provider's token endpoint: the page's CSP lets it, and no other origin.
    const identity = (await request("GET", "/app/identity.json")).body as { issuer: string };
    const policy = (await request("GET", "/app/")).headers.get("content-security-policy")!;
    expect(policy).toMatch(
      new RegExp(`(^|; )connect-src 'self' ${new URL(identity.issuer).origin.replace(/[.]/g, "\\.")}(;|$)`),
    );
  });
});

/** A GET with the Host header a page on another site would send (fetch does not let a caller name the Host). */
function getWithHost(url: URL, host: string): Promise<{ contentType: string; body: string }> {
  return new Promise((resolve, reject) => {
    get(url, { headers: { host } }, (response) => {
      let body = "";
      response.setEncoding("utf8").on("data", (chunk: string) => (body += chunk));
      response.on("end", () => resolve({ contentType: String(response.headers["content-type"] ?? ""), body }));
    }).on("error", reject);
  });
}
