import { describe, expect, it } from "vitest";
import { newOrganization, request } from "#tests/helpers/stack";

/**
 * The limit holds over every rolling 60 s (window edges and instances are tested
 * through the core function with an injected clock in
 * tests/integration/rate-limit-window.test.ts), so a fresh partition's burst
 * needs no wait: everything it counted before still counts.
 */

describe("rate limits (spec 8)", () => {
  it(
    "admits exactly 300 requests of one organization in 60 s, then answers 429 problems",
    { timeout: 150_000 },
    async () => {
      const organization = await newOrganization();
      const automation = (
        await organization.request("POST", "/automations", { body: { name: "Hot" }, token: organization.apiKey })
      ).body;
      // The create counts in the same rolling 60 s as the burst: 299 of these are admitted.
      const responses = await Promise.all(
        Array.from({ length: 330 }, () =>
          organization.request("GET", `/automations/${automation.id}`, { token: organization.apiKey }),
        ),
      );
      const statuses = responses.map((response) => response.status);
      expect(statuses.filter((status) => status === 200)).toHaveLength(299);
      expect(statuses.filter((status) => status === 429)).toHaveLength(31);

      const limited = responses.find((response) => response.status === 429)!;
      expect(limited.headers.get("content-type")).toBe("application/problem+json");
      expect(limited.body).toMatchObject({ status: 429, title: "Too Many Requests" });
      expect(limited.body.detail).toContain("business");
      const retryAfter = limited.headers.get("retry-after")!;
      expect(retryAfter).toMatch(/^\d+$/);
      expect(Number(retryAfter)).toBeGreaterThanOrEqual(0);
      // Counted per second: the burst's first second leaves the window at most 61 s after it began.
      expect(Number(retryAfter)).toBeLessThanOrEqual(61);
      expect(limited.headers.get("ratelimit")).toMatch(/^"business";r=0;t=\d+$/);

      // Another organization has its own partition.
      const neighbour = await newOrganization();
      expect((await neighbour.request("POST", "/automations/all/my", { body: {} })).status).toBe(200);
    },
  );

  it("counts the same organization's users and API keys in one business partition", async () => {
    const organization = await newOrganization();
    const first = await organization.request("POST", "/automations/all/my", { body: {}, token: organization.apiKey });
    const second = await organization.request("POST", "/automations/all/my", {
      body: {},
      token: organization.memberToken,
    });
    const remaining = (response: typeof first) => Number(/r=(\d+)/.exec(response.headers.get("ratelimit") ?? "")?.[1]);
    expect(remaining(first) - remaining(second)).toBe(1);
  });

  it("counts missing and invalid credentials against the caller's IP address", { timeout: 150_000 }, async () => {
    // A fresh address per run: a rerun within a minute would inherit this run's count.
    const sourceIp = `198.18.${Math.floor(Math.random() * 250)}.${1 + Math.floor(Math.random() * 250)}`;
    const otherIp = "198.19.0.1";
    // Well formed, of no organization: its lookup is paid for by the IP partition first, then remembered as unknown.
    const unknownKey = `sk_${"0".repeat(26)}_${"x".repeat(32)}`;
    const responses = await Promise.all(
      Array.from({ length: 305 }, (_, index) =>
        request("GET", "/automations/anything", { sourceIp, token: [null, "sk_invalid", unknownKey][index % 3] }),
      ),
    );
    expect(responses.filter((response) => response.status === 401)).toHaveLength(300);
    const limited = responses.filter((response) => response.status === 429);
    expect(limited).toHaveLength(5);
    expect(limited[0]!.body.detail).toContain("IP address");
    // The public agent card from the same address is limited too; another address is not.
    expect((await request("GET", "/.well-known/agent-card.json", { sourceIp })).status).toBe(429);
    expect((await request("GET", "/.well-known/agent-card.json", { sourceIp: otherIp })).status).toBe(200);
  });
});
