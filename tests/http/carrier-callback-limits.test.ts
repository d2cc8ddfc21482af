import { describe, expect, inject, it } from "vitest";
import { simulatorAuthToken } from "#core/providers/simulator/adapter";
import { twilioSignature } from "#core/providers/twilio/signature";
import { addNumber, magic, send, waitForMessage } from "#tests/helpers/messaging";
import { baseUrl, newOrganization } from "#tests/helpers/stack";

const simulatorToken = () => simulatorAuthToken(inject("stackEnv").TOKEN_SIGNING_KEY!);

/** A status callback from `sourceIp`, signed as the simulator signs unless `forged`. */
function statusCallback(sourceIp: string, params: [string, string][], query: string, forged = false) {
  const url = `${baseUrl()}/webhooks/simulator/messages/status${query}`;
  return fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/x-www-form-urlencoded",
      "x-forwarded-for": sourceIp,
      "x-twilio-signature": forged ? "bm90IGEgc2lnbmF0dXJl" : twilioSignature(simulatorToken(), url, params),
    },
    body: new URLSearchParams(params).toString(),
  });
}

/** Runs `count` calls of `post`, `concurrency` at a time; their statuses in order. */
async function inWaves(
  count: number,
  concurrency: number,
  post: (index: number) => Promise<Response>,
): Promise<number[]> {
  const statuses: number[] = [];
  for (let start = 0; start < count; start += concurrency) {
    const wave = Array.from({ length: Math.min(concurrency, count - start) }, (_, offset) => post(start + offset));
    for (const response of await Promise.all(wave)) {
      statuses.push(response.status);
      await response.arrayBuffer();
    }
  }
  return statuses;
}

const randomIp = () => `198.51.${Math.floor(Math.random() * 250)}.${1 + Math.floor(Math.random() * 250)}`;

describe("carrier callbacks and the per-IP rate limit", () => {
  it(
    "accepts and applies 1,000 validly signed status callbacks from one address within a minute",
    { timeout: 120_000 },
    async () => {
      const org = await newOrganization();
      // Paced at 20 a second, not a long code's 1: ten sends at 1/s would keep ten status polls running for ten seconds,
      // past the organization's read limit, and this test is about the callbacks' limit, not the sends' pace.
      const number = await addNumber(org, "212", ["sms", "mms", "voice"], 20);
      // NoReceipt (08): the carrier reports Sent and never a final receipt, which our callbacks then bring. Ten
      // contacts (one per area code): a conversation's messages go one after the other, ten conversations at once.
      const areaCodes = ["212", "213", "214", "215", "216", "217", "218", "219", "301", "302"];
      const messages = await Promise.all(
        areaCodes.map((areaCode, index) => send(org, { to: magic("08", areaCode), body: `receipt ${index}` })),
      );
      const sent = await Promise.all(
        messages.map((message) => waitForMessage(org, message.body.id, (found) => found.status === "Sent")),
      );
      const carrierIp = randomIp();
      const callback = (message: (typeof sent)[number], status: string) =>
        statusCallback(
          carrierIp,
          [
            ["MessageSid", message.providerMessageId],
            ["MessageStatus", status],
            ["From", number.phoneNumber],
            ["To", message.toPhoneNumber],
          ],
          `?messageId=${message.id}`,
        );

      // 990 repeated `sent` receipts (at-least-once delivery at a carrier's volume), then each message's `delivered`.
      const repeats = await inWaves(990, 50, (index) => callback(sent[index % sent.length]!, "sent"));
      const finals = await inWaves(sent.length, 10, (index) => callback(sent[index]!, "delivered"));
      expect([...repeats, ...finals].filter((status) => status !== 200)).toEqual([]);
      expect([...repeats, ...finals]).toHaveLength(1_000);
      for (const message of sent) expect((await waitForMessage(org, message.id, () => true)).status).toBe("Delivered");
    },
  );

  it("counts unsigned and forged callbacks against the caller's IP as before", { timeout: 120_000 }, async () => {
    const attackerIp = randomIp();
    const params: [string, string][] = [
      ["MessageSid", "SMforged"],
      ["MessageStatus", "delivered"],
      ["From", "+12125550100"],
    ];
    // A fixed window may split the burst over two windows; the IP is refused once its budget is spent.
    const statuses = await inWaves(700, 50, () => statusCallback(attackerIp, params, "", true));
    const firstRefusal = statuses.indexOf(429);
    expect(firstRefusal).toBeGreaterThanOrEqual(300);
    expect(statuses.slice(0, firstRefusal).every((status) => status === 403)).toBe(true);
  });
});
