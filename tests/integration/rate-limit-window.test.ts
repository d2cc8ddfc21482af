import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { consumeRateLimit, rateLimitPolicy } from "#core/rate-limit/index";
import { applyStackEnv } from "#tests/helpers/stack";

applyStackEnv();

const windowMs = 60_000;
/** A window well in the past, so the wall clock's own traffic never shares it. */
const windowN = Math.floor(Date.UTC(2020, 0, 1) / windowMs) * windowMs;

const freshPartition = () => ({ kind: "ip" as const, id: `203.0.113.${randomUUID()}` });

async function burst(partition: ReturnType<typeof freshPartition>, size: number, now: number) {
  const decisions = await Promise.all(Array.from({ length: size }, () => consumeRateLimit(partition, now)));
  return { admitted: decisions.filter((decision) => decision.allowed).length, decisions };
}

describe("sliding-window rate limit (issue 14 §4)", () => {
  it("admits only the weighted remainder at the start of a window after a full one, not another full limit", async () => {
    const limit = rateLimitPolicy.limit;
    const partition = freshPartition();
    // Fill late in window N...
    expect((await burst(partition, limit, windowN + 54_000)).admitted).toBe(limit);
    // ...then burst 6 s into window N+1: 54 of the previous 60 s are still in the rolling interval.
    const early = await burst(partition, limit, windowN + windowMs + 6_000);
    const stillCounted = (limit * (windowMs - 6_000)) / windowMs;
    expect(early.admitted).toBe(limit - stillCounted);
    // No rolling 60 s (N+6 s … N+66 s here) admitted more than the limit plus the decayed share.
    expect(limit + early.admitted).toBeLessThanOrEqual(limit * 1.1);

    const refused = early.decisions.find((decision) => !decision.allowed)!;
    expect(refused.remaining).toBe(0);
    // Retry-After: the earliest moment the previous window's weight has decayed enough for one more request.
    expect(refused.resetSeconds).toBeGreaterThan(0);
    const retryAt = windowN + windowMs + 6_000 + refused.resetSeconds * 1000;
    expect((await consumeRateLimit(partition, retryAt)).allowed).toBe(true);
  });

  it("weighs the previous window less as the current one advances, and forgets it after a whole window", async () => {
    const partition = freshPartition();
    await burst(partition, 100, windowN + 30_000);
    // Half-way into N+1: 50 of the 100 still count.
    const first = await consumeRateLimit(partition, windowN + windowMs + 30_000);
    expect(first).toMatchObject({ allowed: true, remaining: rateLimitPolicy.limit - 1 - 50 });
    // In N+2 only N+1's single hit remains (weighted), N is gone.
    const later = await consumeRateLimit(partition, windowN + 2 * windowMs);
    expect(later).toMatchObject({ allowed: true, remaining: rateLimitPolicy.limit - 1 - 1 });
  });

  it("still admits exactly the limit of a concurrent burst in a window with no history", async () => {
    const { admitted } = await burst(freshPartition(), rateLimitPolicy.limit + 30, windowN + 1_000);
    expect(admitted).toBe(rateLimitPolicy.limit);
  });
});
