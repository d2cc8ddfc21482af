import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { ulid } from "ulid";
import * as Idempotency from "#core/idempotency/index";
import { fingerprint } from "#core/idempotency/index";
import { callEventsOf } from "#tests/helpers/calls";
import { addNumber, createLead, events, magic, randomNumber, waitForMessage } from "#tests/helpers/messaging";
import { applyStackEnv, newOrganization, type TestOrganization } from "#tests/helpers/stack";

const post = (org: TestOrganization, path: string, body: unknown, key: string) =>
  org.request("POST", path, { body, headers: { "idempotency-key": key } });

describe("Idempotency-Key on every POST that creates something or moves money", () => {
  it("20 parallel POST /calls with one key place one call and hold its cost once", async () => {
    const org = await newOrganization();
    await addNumber(org);
    const to = magic("27"); // rings for 60 s: the hold is still there when the test looks
    const key = randomUUID();
    const attempts = await Promise.all(Array.from({ length: 20 }, () => post(org, "/calls", { to }, key)));
    const accepted = attempts.filter((attempt) => attempt.status === 202);
    expect(attempts.every((attempt) => attempt.status === 202 || attempt.status === 409)).toBe(true);
    expect(accepted.length).toBeGreaterThanOrEqual(1);
    expect(new Set(accepted.map((attempt) => attempt.body.id)).size).toBe(1);
    const replay = await post(org, "/calls", { to }, key);
    expect(replay.status).toBe(202);
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect(replay.body.id).toBe(accepted[0]!.body.id);
    expect((await org.request("GET", "/billing/wallet")).body.reservedAmount).toBe("0.6000");
    expect(new Set((await callEventsOf(org, encodeURIComponent(to))).map((event) => event.callId ?? event.id))).toEqual(
      new Set([accepted[0]!.body.id]),
    );
  });

  it("20 parallel POST /messages with one key (its answer is stored with the message) store one message and one event, and all answer it alike; a refused send frees the key", async () => {
    const org = await newOrganization();
    await addNumber(org);
    const lead = await createLead(org, randomNumber());
    const key = randomUUID();
    const attempts = await Promise.all(
      Array.from({ length: 20 }, () => post(org, "/messages", { leadId: lead.id, body: "Just once" }, key)),
    );
    // No in-flight claim: the first transaction to commit wins, and every other request replays its stored answer.
    const accepted = attempts.filter((attempt) => attempt.status === 202);
    expect(attempts.map((attempt) => attempt.status)).toEqual(attempts.map(() => 202));
    expect(new Set(accepted.map((attempt) => JSON.stringify(attempt.body))).size).toBe(1);
    expect(accepted.filter((attempt) => attempt.headers.get("idempotent-replayed") !== "true")).toHaveLength(1);
    const replay = await post(org, "/messages", { leadId: lead.id, body: "Just once" }, key);
    expect([replay.status, replay.headers.get("idempotent-replayed"), replay.body.id]).toEqual([
      202,
      "true",
      accepted[0]!.body.id,
    ]);
    expect(replay.headers.get("ratelimit")).toMatch(/r=\d+/);
    await waitForMessage(org, accepted[0]!.body.id);
    // One message was stored and sent: the lead's message events all name it, and it was accepted once.
    const leadEvents = (await events(org, { leadId: lead.id })).filter((event) => event.eventCategory === "Sms");
    expect(new Set(leadEvents.map((event) => event.relatedEntityId))).toEqual(new Set([accepted[0]!.body.id]));
    expect(leadEvents.filter((event) => event.eventType === "MessageAccepted")).toHaveLength(1);

    // A send its reads refuse (an unknown lead: 400) stores nothing and frees its key: the same key then sends.
    const unknownLead = { leadId: ulid(), body: "Hello" };
    const refusedKey = randomUUID();
    expect((await post(org, "/messages", unknownLead, refusedKey)).status).toBe(400);
    expect((await post(org, "/messages", unknownLead, refusedKey)).status).toBe(400);
    expect((await post(org, "/messages", { to: randomNumber(), body: "Hello" }, refusedKey)).status).toBe(202);
  });

  it("POST /messages with a key used before answers from the key's record before writing anything (no conversation created for another payload's lead)", async () => {
    const org = await newOrganization();
    await addNumber(org);
    const [first, other] = [await createLead(org, randomNumber()), await createLead(org, randomNumber())];
    const key = randomUUID();
    const sent = await post(org, "/messages", { leadId: first.id, body: "Hello" }, key);
    expect(sent.status).toBe(202);
    const reused = await post(org, "/messages", { leadId: other.id, body: "Hello" }, key);
    expect(reused.status).toBe(422);
    expect(reused.headers.get("content-type")).toContain("application/problem+json");
    const replay = await post(org, "/messages", { leadId: first.id, body: "Hello" }, key);
    expect([replay.status, replay.headers.get("idempotent-replayed"), replay.body.id]).toEqual([
      202,
      "true",
      sent.body.id,
    ]);
    const conversations = (await org.request("POST", "/conversations/all/my", { body: {} })).body.items;
    expect(conversations.map((conversation: { leadId: string | null }) => conversation.leadId)).toEqual([first.id]);
  });

  it("phone numbers, suppressions, automations, messages and top-ups replay the first answer for the same key, and refuse another payload with 422", async () => {
    const org = await newOrganization();
    await addNumber(org);
    const creations: [string, unknown, unknown][] = [
      [
        "/phone-numbers",
        { phoneNumber: randomNumber("415"), friendlyName: "Line" },
        { phoneNumber: randomNumber("415"), friendlyName: "Other" },
      ],
      ["/suppressions", { phoneNumber: randomNumber() }, { phoneNumber: randomNumber() }],
      ["/automations", { name: "Once" }, { name: "Twice" }],
      ["/messages", { to: randomNumber(), body: "once" }, { to: randomNumber(), body: "twice" }],
      ["/billing/wallet/top-ups", { amount: "5.00" }, { amount: "6.00" }],
    ];
    for (const [path, body, other] of creations) {
      const key = randomUUID();
      const first = await post(org, path, body, key);
      expect(first.status, path).toBeLessThan(300);
      const again = await post(org, path, body, key);
      expect([again.status, again.headers.get("idempotent-replayed"), again.body], path).toEqual([
        first.status,
        "true",
        first.body,
      ]);
      expect((await post(org, path, other, key)).status, path).toBe(422);
    }
    expect(
      (await org.request("POST", "/automations/all/my", { body: {} })).body.items.filter(
        (item: any) => item.name === "Once",
      ),
    ).toHaveLength(1);
  });

  it("documents the key and its 409/422 answers on every creating POST in the contract", async () => {
    const contract = (await (await newOrganization()).request("GET", "/openapi.json")).body;
    const creating = [
      "/calls",
      "/phone-numbers",
      "/suppressions",
      "/automations",
      "/automations/{id}/runs",
      "/automations/{id}/runs/{runId}/retry",
      "/messages",
      "/leads",
      "/leads/intake",
      "/billing/wallet/top-ups",
    ];
    for (const path of creating) {
      const operation = contract.paths[path].post;
      expect(
        operation.parameters.map((parameter: any) => parameter.name),
        path,
      ).toContain("Idempotency-Key");
      expect(Object.keys(operation.responses), path).toEqual(expect.arrayContaining(["409", "422"]));
    }
  });
});

describe("an in-flight Idempotency-Key claim lasts only as long as its request can run", () => {
  applyStackEnv();
  const body = { to: magic("27") };
  // The key as the route claims it: its route key as scope, the fingerprint of the query and the parsed body.
  const claimAs = (org: TestOrganization, key: string, owner: { startedMsAgo: number; timeoutMs: number }) =>
    Idempotency.claim(org.organizationId, "POST /calls", key, fingerprint({ query: "", body }), {
      now: Date.now() - owner.startedMsAgo,
      remainingMs: owner.timeoutMs,
    });

  it("a retry while the owner can still be running is a 409; once the owner's function timeout has passed, the retry goes through", async () => {
    const org = await newOrganization();
    await addNumber(org);
    const running = randomUUID();
    expect(await claimAs(org, running, { startedMsAgo: 1_000, timeoutMs: 30_000 })).toMatchObject({ kind: "claimed" });
    expect((await post(org, "/calls", body, running)).status).toBe(409);

    // A request that claimed its key 31 s ago with a 30 s timeout and never finished (killed, out of memory).
    const abandoned = randomUUID();
    expect(await claimAs(org, abandoned, { startedMsAgo: 31_000, timeoutMs: 30_000 })).toMatchObject({
      kind: "claimed",
    });
    const retry = await post(org, "/calls", body, abandoned);
    expect(retry.status).toBe(202);
    const replay = await post(org, "/calls", body, abandoned);
    expect([replay.status, replay.headers.get("idempotent-replayed"), replay.body.id]).toEqual([
      202,
      "true",
      retry.body.id,
    ]);
  });
});
