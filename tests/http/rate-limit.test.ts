import { describe, expect, it } from "vitest";
import { newOrganization, request } from "#tests/helpers/stack";

/**
 * Counters live in fixed 60 s slots of the wall clock, and the previous slot's
 * count decays into the current one (sliding window; the boundary arithmetic is
 * tested through the core function with an injected clock in
 * tests/integration/rate-limit-window.test.ts). The exactness tests start their
 * burst early in a fresh window.
 */
async function startOfFreshWindow(options: { always?: boolean } = {}): Promise<void> {
  const left = 60_000 - (Date.now() % 60_000);
  if (options.always || left < 45_000) await new Promise((resolve) => setTimeout(resolve, left + 250));
}

describe("rate limits (spec 8)", () => {
  it("admits exactly 300 of 330 concurrent requests of one organization, then answers 429 problems", { timeout: 150_000 }, async () => {
    const organization = await newOrganization();
    const automation = (await organization.request("POST", "/automations", { body: { name: "Hot" }, token: organization.apiKey })).body;
    // The create counted in the current window: start the burst in the next one.
    await startOfFreshWindow({ always: true });
    const responses = await Promise.all(
      Array.from({ length: 330 }, () => organization.request("GET", `/automations/${automation.id}`, { token: organization.apiKey })),
    );
    const statuses = responses.map((response) => response.status);
    expect(statuses.filter((status) => status === 200)).toHaveLength(300);
    expect(statuses.filter((status) => status === 429)).toHaveLength(30);

    const limited = responses.find((response) => response.status === 429)!;
    expect(limited.headers.get("content-type")).toBe("application/problem+json");
    expect(limited.body).toMatchObject({ status: 429, title: "Too Many Requests" });
    expect(limited.body.detail).toContain("business");
    const retryAfter = limited.headers.get("retry-after")!;
    expect(retryAfter).toMatch(/^\d+$/);
    expect(Number(retryAfter)).toBeGreaterThanOrEqual(0);
    expect(Number(retryAfter)).toBeLessThanOrEqual(60);
    expect(limited.headers.get("ratelimit")).toMatch(/^"business";r=0;t=\d+$/);

    // Another organization has its own partition.
    const neighbour = await newOrganization();
    expect((await neighbour.request("POST", "/automations/all/my", { body: {} })).status).toBe(200);
  });

  it("counts the same organization's users and API keys in one business partition", async () => {
    const organization = await newOrganization();
    const first = await organization.request("POST", "/automations/all/my", { body: {}, token: organization.apiKey });
    const second = await organization.request("POST", "/automations/all/my", { body: {}, token: organization.memberToken });
    const remaining = (response: typeof first) => Number(/r=(\d+)/.exec(response.headers.get("ratelimit") ?? "")?.[1]);
    expect(remaining(first) - remaining(second)).toBe(1);
  });

  it("counts missing and invalid credentials against the caller's IP address", { timeout: 150_000 }, async () => {
    // A fresh address per run: with a sliding window, a rerun within two minutes would inherit this run's count.
    const sourceIp = `198.18.${Math.floor(Math.random() * 250)}.${1 + Math.floor(Math.random() * 250)}`;
    const otherIp = "198.19.0.1";
    // Well formed, of no organization: its lookup is paid for by the IP partition first, then remembered as unknown.
    const unknownKey = `sk_${"0".repeat(26)}_${"x".repeat(32)}`;
    await startOfFreshWindow();
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
