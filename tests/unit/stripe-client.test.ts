import Stripe from "stripe";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stripeApiVersion, verifiedEvent } from "#core/billing/stripe";
import { environmentNames } from "#stacks/definitions";

/** core/billing/stripe.ts speaks to Stripe without the library: it must ask for the library's API version and accept exactly the signatures the library accepts. */

const secret = "whsec_unit_test_secret";
const payload = JSON.stringify({
  id: "evt_1",
  object: "event",
  type: "payment_intent.succeeded",
  data: { object: {} },
});
const now = Math.floor(Date.now() / 1000);
const sign = (options: { payload?: string; secret?: string; timestamp?: number } = {}) =>
  Stripe.webhooks.generateTestHeaderString({
    payload: options.payload ?? payload,
    secret: options.secret ?? secret,
    timestamp: options.timestamp ?? now,
  });

/** What the library answers for the same payload and header: the event, or undefined when it throws. */
function libraryVerdict(body: string, header: string): unknown {
  try {
    return Stripe.webhooks.constructEvent(body, header, secret);
  } catch {
    return undefined;
  }
}

describe("the Stripe client without the library", () => {
  const previous = process.env[environmentNames.stripeWebhookSecret];
  beforeAll(() => {
    process.env[environmentNames.stripeWebhookSecret] = secret;
  });
  afterAll(() => {
    if (previous === undefined) delete process.env[environmentNames.stripeWebhookSecret];
    else process.env[environmentNames.stripeWebhookSecret] = previous;
  });

  it("asks for the API version the installed library pins, so answers have its types' shapes", () => {
    expect(stripeApiVersion).toBe(Stripe.API_VERSION);
  });

  const valid = sign();
  const [timestampPart, v1Part] = valid.split(",");
  it.each([
    ["a signature of the library", payload, valid],
    ["a second v1 signature that matches", payload, `${timestampPart},v1=${"0".repeat(64)},${v1Part}`],
    ["a timestamp in the future", payload, sign({ timestamp: now + 600 })],
    ["a timestamp 200 s old", payload, sign({ timestamp: now - 200 })],
    ["a timestamp 400 s old", payload, sign({ timestamp: now - 400 })],
    ["another endpoint's secret", payload, sign({ secret: "whsec_other" })],
    ["a changed payload", payload.replace("evt_1", "evt_2"), valid],
    ["no timestamp", payload, v1Part!],
    ["no v1 signature", payload, timestampPart!],
    ["only a v0 signature", payload, `${timestampPart},v0=${v1Part!.slice(3)}`],
    ["a truncated signature", payload, valid.slice(0, -2)],
    ["garbage", payload, "not a signature"],
    [
      "a thin v2 event",
      JSON.stringify({ id: "evt_2", object: "v2.core.event" }),
      sign({ payload: JSON.stringify({ id: "evt_2", object: "v2.core.event" }) }),
    ],
  ])("answers as the library does for %s", async (_case, body, header) => {
    const expected = libraryVerdict(body, header);
    expect(await verifiedEvent(body, header)).toEqual(expected);
  });

  it("accepts a valid signature and refuses a stale one (the cases above are not all alike)", async () => {
    expect(await verifiedEvent(payload, valid)).toMatchObject({ id: "evt_1" });
    expect(await verifiedEvent(payload, sign({ timestamp: now - 400 }))).toBeUndefined();
  });
});
