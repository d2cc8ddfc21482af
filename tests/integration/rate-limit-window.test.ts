import { randomUUID } from "node:crypto";
import { describe, expect, it, vi } from "vitest";
import type { RateLimitDecision } from "#core/rate-limit/index";
import { getItem } from "#core/db/items";
import { keys } from "#core/db/keys";
import { applyStackEnv } from "#tests/helpers/stack";

applyStackEnv();

type Limiter = typeof import("#core/rate-limit/index");

/**
 * Each Lambda instance has its own module state (its leased blocks); a fresh module per "instance" gives the same
 * here, all of them counting against the test stack's DynamoDB Local.
 */
async function instances(count: number): Promise<Limiter[]> {
  const loaded: Limiter[] = [];
  for (let index = 0; index < count; index++) {
    vi.resetModules();
    loaded.push(await import("#core/rate-limit/index"));
  }
  return loaded;
}

/** A moment well in the past (a fixed minute's edge at `edge`), so the wall clock's own traffic never shares it. */
const edge = Math.floor(Date.UTC(2020, 0, 1) / 60_000) * 60_000;
const freshPartition = () => ({ kind: "ip" as const, id: `203.0.113.${randomUUID()}` });

/** `size` requests at once at `now`, dealt round-robin over the instances. */
async function burst(limiters: Limiter[], partition: ReturnType<typeof freshPartition>, size: number, now: number) {
  const decisions = await Promise.all(
    Array.from({ length: size }, (_, index) => limiters[index % limiters.length]!.consumeRateLimit(partition, now)),
  );
  return { admitted: decisions.filter((decision) => decision.allowed).length, decisions };
}

/** The most requests admitted in any rolling 60 s (intervals [t - 60 s, t) ending just after each admission). */
function fullestMinute(admittedAt: number[]): number {
  const sorted = [...admittedAt].sort((a, b) => a - b);
  let fullest = 0;
  for (let end = 0, start = 0; end < sorted.length; end++) {
    while (sorted[end]! - sorted[start]! >= 60_000) start++;
    fullest = Math.max(fullest, end - start + 1);
  }
  return fullest;
}

describe("rate limit over every rolling 60 s, across instances (issue 27, issue 24 finding 5)", () => {
  it("admits exactly the limit of a burst dealt over three instances", async () => {
    const limiters = await instances(3);
    const limit = limiters[0]!.rateLimitPolicy.limit;
    const { admitted, decisions } = await burst(limiters, freshPartition(), limit * 2, edge + 1_000);
    expect(admitted).toBe(limit);
    for (const refused of decisions.filter((decision) => !decision.allowed)) {
      expect(refused).toMatchObject({ remaining: 0 });
      // The burst's second leaves the window 61 s after it began (one second stricter than a log of each request).
      expect(refused.resetSeconds).toBe(61);
    }
  });

  it("admits no more than the limit across a fixed minute's edge: bursts just before and just after it share one window", async () => {
    const limiters = await instances(2);
    const limit = limiters[0]!.rateLimitPolicy.limit;
    const partition = freshPartition();
    const admittedAt: number[] = [];
    const at = async (now: number, size: number) => {
      const { admitted, decisions } = await burst(limiters, partition, size, now);
      admittedAt.push(...Array.from({ length: admitted }, () => now));
      return { admitted, refused: decisions.find((decision) => !decision.allowed) };
    };
    expect((await at(edge - 500, (2 * limit) / 3)).admitted).toBe((2 * limit) / 3);
    // The old fixed window admitted a whole new limit here; the weighted estimate about 2× over a few seconds.
    const after = await at(edge + 200, limit);
    expect(after.admitted).toBe(limit / 3);
    // 59.9 s after the first burst it still counts; its second leaves the window at edge + 60.0 s.
    const late = await at(edge + 59_400, limit);
    expect(late.admitted).toBe(0);
    expect(late.refused!.resetSeconds).toBe(1);
    expect((await at(edge + 59_999, 1)).admitted).toBe(0);
    expect((await at(edge + 60_000, limit)).admitted).toBe((2 * limit) / 3);
    expect(fullestMinute(admittedAt)).toBe(limit);
  });

  it("never admits more than the limit in any rolling 60 s of uneven traffic from two instances, and keeps admitting as it frees", async () => {
    const limiters = await instances(2);
    const limit = limiters[0]!.rateLimitPolicy.limit;
    const partition = freshPartition();
    const admittedAt: number[] = [];
    let refusals = 0;
    // 150 simulated seconds in 250 ms ticks, each instance taking 0–6 requests a tick (deterministic pattern).
    for (let tick = 0; tick < 600; tick++) {
      const now = edge + 30_000 + tick * 250;
      const sizes = [(tick * 3) % 7, (tick * 5 + 3) % 6];
      const decisions = await Promise.all(
        sizes.flatMap((size, instance) =>
          Array.from({ length: size }, () => limiters[instance]!.consumeRateLimit(partition, now)),
        ),
      );
      for (const decision of decisions) if (decision.allowed) admittedAt.push(now);
      refusals += decisions.filter((decision) => !decision.allowed).length;
    }
    expect(refusals).toBeGreaterThan(0);
    expect(fullestMinute(admittedAt)).toBe(limit);
    // Still admitting through the end: blocks of a new second take what left the window.
    expect(admittedAt.filter((at) => at >= edge + 30_000 + 120_000).length).toBeGreaterThan(0);
  });

  it("answers remaining and reset from the rolling window, one request at a time", async () => {
    const [limiter] = await instances(1);
    const limit = limiter!.rateLimitPolicy.limit;
    const partition = freshPartition();
    const decisions: RateLimitDecision[] = [];
    for (let index = 0; index < 5; index++)
      decisions.push(await limiter!.consumeRateLimit(partition, edge + 10_000 + index * 300));
    expect(decisions.map((decision) => decision.remaining)).toEqual([
      limit - 1,
      limit - 2,
      limit - 3,
      limit - 4,
      limit - 5,
    ]);
    // `t`: until the oldest counted second (edge + 10 s) leaves the window, at edge + 71 s.
    expect(decisions.map((decision) => decision.resetSeconds)).toEqual([61, 61, 61, 61, 60]);
  });

  it("leases blocks: a busy instance writes the allowance far less than once a request", async () => {
    const [limiter] = await instances(1);
    const partition = freshPartition();
    const key = keys.rateLimitAllowance(partition);
    let writes = 0;
    let version: unknown;
    // An operator-raised limit, as on a busy stage (the same module reads it live).
    process.env.RATE_LIMIT_REQUESTS = "100000";
    try {
      // 5 requests a tick at 100 ms ticks over 3 simulated seconds.
      for (let tick = 0; tick < 30; tick++) {
        const decisions = await Promise.all(
          Array.from({ length: 5 }, () => limiter!.consumeRateLimit(partition, edge + 200_000 + tick * 100)),
        );
        expect(decisions.every((decision) => decision.allowed)).toBe(true);
        const stored = await getItem(key, { consistent: true, attributes: ["version"] });
        if (stored?.version !== version) writes++;
        version = stored?.version;
      }
    } finally {
      delete process.env.RATE_LIMIT_REQUESTS;
    }
    // Doubling blocks in the first second, then one block a second from the last second's rate: 150 requests.
    expect(writes).toBeLessThanOrEqual(6);
  });
});
