import { describe, expect, it } from "vitest";
import { createSimulatorProvider } from "#core/providers/simulator/adapter";

/** A receiver that is slow to answer the first callback, recording when each one started and was answered. */
function slowReceiver(firstAnswerMs: number) {
  const posts: { status: string; startedAt: number; answeredAt?: number }[] = [];
  const fakeFetch = (async (_url: string | URL | Request, init?: RequestInit) => {
    const status = new URLSearchParams(String(init?.body)).get("MessageStatus") ?? "?";
    const post: { status: string; startedAt: number; answeredAt?: number } = { status, startedAt: Date.now() };
    posts.push(post);
    await new Promise((resolve) => setTimeout(resolve, posts.length === 1 ? firstAnswerMs : 0));
    post.answeredAt = Date.now();
    return new Response("<Response/>", { status: 200 });
  }) as typeof fetch;
  return { posts, fakeFetch };
}

async function until(done: () => boolean, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > deadline) throw new Error("the callbacks did not all arrive");
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe("the carrier simulator's status callbacks", () => {
  it("posts a message's callbacks in the scenario's order, each after the previous one was answered, however slow the receiver", async () => {
    // The receiver takes 600 ms to answer the first callback: far longer than the gap between the two (250 ms).
    const { posts, fakeFetch } = slowReceiver(600);
    const simulator = createSimulatorProvider({ authToken: "token", delayScale: 1, fetch: fakeFetch });
    await simulator.sendMessage({
      from: "+12125550100",
      to: "+12125550109",
      body: "out of order",
      idempotencyKey: "m-09",
      statusCallbackUrl: "http://receiver.invalid/status",
    });
    await until(() => posts.length === 2 && posts[1]!.answeredAt !== undefined);
    expect(posts.map((post) => post.status)).toEqual(["delivered", "sent"]);
    expect(posts[1]!.startedAt).toBeGreaterThanOrEqual(posts[0]!.answeredAt!);
  });

  it("still posts a duplicated callback beside its original, and the next one only after both were answered", async () => {
    const { posts, fakeFetch } = slowReceiver(400);
    const simulator = createSimulatorProvider({ authToken: "token", delayScale: 1, fetch: fakeFetch });
    await simulator.sendMessage({
      from: "+12125550100",
      to: "+12125550110",
      body: "twice",
      idempotencyKey: "m-10",
      statusCallbackUrl: "http://receiver.invalid/status",
    });
    await until(() => posts.length === 4 && posts.every((post) => post.answeredAt !== undefined));
    expect(posts.map((post) => post.status)).toEqual(["sent", "sent", "delivered", "delivered"]);
    // The duplicate did not wait for its slow original…
    expect(posts[1]!.startedAt).toBeLessThan(posts[0]!.answeredAt!);
    // …but "delivered" waited for both.
    expect(posts[2]!.startedAt).toBeGreaterThanOrEqual(Math.max(posts[0]!.answeredAt!, posts[1]!.answeredAt!));
  });
});
