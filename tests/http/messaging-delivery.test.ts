import { MessageSend } from "#core/messaging/queue";
import { describe, expect, inject, it } from "vitest";
import { twilioSignature } from "#core/providers/twilio/signature";
import { simulatorAuthToken } from "#core/providers/simulator/adapter";
import {
  addNumber,
  events,
  eventsWhen,
  magic,
  randomNumber,
  send,
  sleep,
  waitForMessage,
} from "#tests/helpers/messaging";
import { baseUrl, newOrganization } from "#tests/helpers/stack";

const simulatorToken = () => simulatorAuthToken(inject("stackEnv").TOKEN_SIGNING_KEY!);

/** Posts a status callback to our webhook, signed as the simulator signs (or with a given signature). */
async function statusCallback(params: [string, string][], query = "", signature?: string) {
  const url = `${baseUrl()}/webhooks/simulator/messages/status${query}`;
  return fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/x-www-form-urlencoded",
      ...(signature !== ""
        ? { "x-twilio-signature": signature ?? twilioSignature(simulatorToken(), url, params) }
        : {}),
    },
    body: new URLSearchParams(params).toString(),
  });
}

describe("retries of transient provider errors", () => {
  it("retries after a transient refusal with backoff, then delivers (retryCount, nextRetryAt, a retry event)", async () => {
    const org = await newOrganization();
    await addNumber(org);
    const accepted = await send(org, { to: magic("03"), body: "retry me" });
    const delivered = await waitForMessage(org, accepted.body.id, (message) => message.status === "Delivered");
    expect(delivered.retryCount).toBe(1);
    expect(Date.parse(delivered.nextRetryAt)).toBeGreaterThanOrEqual(Date.parse(delivered.queuedAt));
    const retries = await events(org, { eventType: "MessageRetryScheduled" });
    expect(retries).toHaveLength(1);
    expect(retries[0]).toMatchObject({ errorCode: "20429", retryCount: 1, status: "Queued" });
  });

  it("fails with the provider's error code once the retries run out", async () => {
    const org = await newOrganization();
    await addNumber(org);
    const accepted = await send(org, { to: magic("04"), body: "never goes" });
    const failed = await waitForMessage(org, accepted.body.id, undefined, 20_000);
    expect(failed).toMatchObject({ status: "Failed", errorCode: "30001", retryCount: 2 });
    expect(failed.statusReason).toMatch(/Gave up after 2 retries/);
    expect(await events(org, { eventType: "MessageRetryScheduled" })).toHaveLength(2);
  });

  it("fails a permanent refusal at once, without retrying", async () => {
    const org = await newOrganization();
    await addNumber(org);
    const accepted = await send(org, { to: magic("07"), body: "bad number" });
    expect(await waitForMessage(org, accepted.body.id)).toMatchObject({
      status: "Failed",
      errorCode: "21614",
      retryCount: 0,
    });
  });
});

describe("status callbacks", () => {
  it("keeps Delivered when the sent receipt arrives after it (out of order)", async () => {
    const org = await newOrganization();
    await addNumber(org);
    const accepted = await send(org, { to: magic("09"), body: "out of order" });
    const delivered = await waitForMessage(org, accepted.body.id, (message) => message.status === "Delivered");
    await sleep(400); // the late "sent" callback (125 ms after the delivered one, at the tests' delay scale) has arrived by now
    const after = await waitForMessage(org, accepted.body.id, () => true);
    expect(after.status).toBe("Delivered");
    expect(after.deliveredAt).toBe(delivered.deliveredAt);
    expect(after.sentAt ?? null).toBeNull();
  });

  it("records each status once when every callback is delivered twice", async () => {
    const org = await newOrganization();
    await addNumber(org);
    const accepted = await send(org, { to: magic("10"), body: "twice" });
    await waitForMessage(org, accepted.body.id, (message) => message.status === "Delivered");
    // Each event is recorded just after its status change: wait for both, then give a duplicate the time to show up.
    const ofThis = (items: any[], type: string) =>
      items.filter((event) => event.relatedEntityId === accepted.body.id && event.eventType === type);
    await eventsWhen(
      org,
      { eventCategory: "Sms" },
      (items) => ofThis(items, "MessageDelivered").length > 0 && ofThis(items, "MessageSent").length > 0,
    );
    await sleep(200);
    const mine = (await events(org, { eventCategory: "Sms" })).filter(
      (event) => event.relatedEntityId === accepted.body.id,
    );
    expect(mine.filter((event) => event.eventType === "MessageDelivered")).toHaveLength(1);
    expect(mine.filter((event) => event.eventType === "MessageSent")).toHaveLength(1);
  });

  it("answers a replayed callback 200 and changes nothing", async () => {
    const org = await newOrganization();
    const number = await addNumber(org);
    const accepted = await send(org, { to: randomNumber(), body: "replay" });
    // The provider id is stored just after the hand-off, and the callbacks may overtake that write.
    const delivered = await waitForMessage(
      org,
      accepted.body.id,
      (message) => message.status === "Delivered" && message.providerMessageId !== null,
    );
    const params: [string, string][] = [
      ["MessageSid", delivered.providerMessageId],
      ["MessageStatus", "sent"],
      ["From", number.phoneNumber],
      ["To", delivered.toPhoneNumber],
    ];
    const replay = await statusCallback(params, `?messageId=${delivered.id}`);
    expect(replay.status).toBe(200);
    expect(await replay.text()).toContain("<Response>");
    expect((await waitForMessage(org, delivered.id, () => true)).status).toBe("Delivered");
  });

  it("applies a receipt by the message id its URL names; a signed receipt without it changes nothing", async () => {
    const org = await newOrganization();
    const number = await addNumber(org);
    // Sent, and the simulator sends no final receipt: the two below are the only ones.
    const accepted = await send(org, { to: magic("08"), body: "no receipt of its own" });
    const sent = await waitForMessage(
      org,
      accepted.body.id,
      (message) => message.status === "Sent" && message.providerMessageId !== null,
    );
    const params: [string, string][] = [
      ["MessageSid", sent.providerMessageId],
      ["MessageStatus", "delivered"],
      ["From", number.phoneNumber],
      ["To", sent.toPhoneNumber],
    ];
    // The carrier's id alone: no pointer from it to the message is stored (issue 27), so it is acknowledged and left
    // to the receipt check, which asks the carrier.
    const bare = await statusCallback(params);
    expect(bare.status).toBe(200);
    await sleep(300);
    expect((await waitForMessage(org, sent.id, () => true)).status).toBe("Sent");
    expect((await statusCallback(params, `?messageId=${sent.id}`)).status).toBe(200);
    expect((await waitForMessage(org, sent.id, (message) => message.status === "Delivered")).status).toBe("Delivered");
  });

  it("refuses unsigned and wrongly signed webhooks with 403, and an unknown provider with 404", async () => {
    const params: [string, string][] = [
      ["MessageSid", "SMxyz"],
      ["MessageStatus", "delivered"],
      ["From", "+12125550100"],
    ];
    expect((await statusCallback(params, "", "")).status).toBe(403);
    expect((await statusCallback(params, "", "bm90IGEgc2lnbmF0dXJl")).status).toBe(403);
    const inbound = await fetch(`${baseUrl()}/webhooks/simulator/messages/inbound`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "From=%2B12125550100&To=%2B12125550101&Body=hi&MessageSid=SM1",
    });
    expect(inbound.status).toBe(403);
    expect(inbound.headers.get("content-type")).toContain("application/problem+json");
    const unknown = await fetch(`${baseUrl()}/webhooks/carrier-x/messages/status`, { method: "POST", body: "a=b" });
    expect(unknown.status).toBe(404);
  });
});

describe("at-most-once sending", () => {
  it("sends to the provider once when the queue delivers the same message many times at once", async () => {
    const org = await newOrganization();
    await addNumber(org);
    const { publish } = await import("#core/queue/messages");
    await import("#core/messaging/queue");
    const accepted = await send(org, { to: randomNumber(), body: "once" });
    // SQS may deliver a message more than once; here eight copies race the original.
    await Promise.all(
      Array.from({ length: 8 }, () => publish(MessageSend, org.organizationId, { messageId: accepted.body.id })),
    );
    // The provider id is stored just after the hand-off, and the callbacks may overtake that write.
    const delivered = await waitForMessage(
      org,
      accepted.body.id,
      (message) => message.status === "Delivered" && message.providerMessageId !== null,
    );
    await sleep(1_000);
    const after = await waitForMessage(org, delivered.id, () => true);
    expect(after).toMatchObject({
      status: "Delivered",
      providerMessageId: delivered.providerMessageId,
      sendingStartedAt: delivered.sendingStartedAt,
    });
    const mine = (await events(org, { eventCategory: "Sms" })).filter(
      (event) => event.relatedEntityId === delivered.id,
    );
    expect(mine.filter((event) => event.eventType === "MessageSending")).toHaveLength(1);
    expect(mine.filter((event) => event.eventType === "MessageQueued")).toHaveLength(1);
  });
});
