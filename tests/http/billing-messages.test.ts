import { describe, expect, it } from "vitest";
import * as Billing from "#core/billing/index";
import * as Money from "#core/shared/money";
import { allLedgerEntries, balanceLess, setAvailableBalance } from "#tests/helpers/billing";
import { addNumber, eventsWhen, magic, randomNumber, send, waitForMessage } from "#tests/helpers/messaging";
import { newOrganization } from "#tests/helpers/stack";

/** Final and billed: the settlement follows the final status by a moment. */
const settled = (message: any) =>
  ["Delivered", "Undelivered", "Failed", "Blocked", "Canceled"].includes(message.status) &&
  message.billingStatus !== "Reserved";

describe("billing of messages", () => {
  it("charges a delivered SMS per segment with its ledger entry, and the final event carries the charge", async () => {
    const org = await newOrganization();
    await addNumber(org);
    const expected = await balanceLess(org, "0.02");
    const accepted = await send(org, { to: randomNumber(), body: "x".repeat(200) });
    expect(accepted.status).toBe(202);
    const message = await waitForMessage(org, accepted.body.id, settled);
    expect(message).toMatchObject({ status: "Delivered", segments: 2, billingStatus: "Charged", billableAmount: 0.02 });
    const ledger = await allLedgerEntries(org);
    expect(ledger).toContainEqual(
      expect.objectContaining({
        entryType: "Charge",
        amount: "-0.0200",
        reason: "SmsSegments",
        messageId: message.id,
        relatedEntityType: "Message",
        quantity: 2,
      }),
    );
    const wallet = (await org.request("GET", "/billing/wallet")).body;
    expect(wallet).toMatchObject({ balance: expected, reservedAmount: "0.0000" });
    // The event is recorded just after the final status.
    const isDelivery = (event: any) => event.eventType === "MessageDelivered" && event.relatedEntityId === message.id;
    const delivered = (await eventsWhen(org, {}, (items) => items.some(isDelivery))).find(isDelivery);
    expect(delivered).toMatchObject({ billingStatus: "Charged", billableAmount: 0.02 });
  });

  it("charges an MMS at the MMS rate and releases a message that fails at the carrier", async () => {
    const org = await newOrganization();
    await addNumber(org);
    const expected = await balanceLess(org, "0.03");
    const mms = await send(org, {
      to: randomNumber(),
      body: "photo",
      media: [{ url: "https://example.com/a.jpg", contentType: "image/jpeg" }],
    });
    const failed = await send(org, { to: magic("01"), body: "hello" });
    const [mmsMessage, failedMessage] = await Promise.all([
      waitForMessage(org, mms.body.id, settled),
      waitForMessage(org, failed.body.id, settled),
    ]);
    expect(mmsMessage).toMatchObject({ status: "Delivered", billingStatus: "Charged", billableAmount: 0.03 });
    expect(failedMessage).toMatchObject({ status: "Failed", billingStatus: "Released", billableAmount: 0 });
    const wallet = (await org.request("GET", "/billing/wallet")).body;
    expect(wallet).toMatchObject({ balance: expected, reservedAmount: "0.0000", availableBalance: expected });
  });

  it("answers 402 to sends from an empty or suspended wallet", async () => {
    const org = await newOrganization();
    await addNumber(org);
    await setAvailableBalance(org, "0");
    const empty = await send(org, { to: randomNumber(), body: "hi" });
    expect(empty.status).toBe(402);
    expect(empty.headers.get("content-type")).toContain("application/problem+json");
    await setAvailableBalance(org, "1");
    await Billing.setSuspended(org.organizationId, true);
    expect((await send(org, { to: randomNumber(), body: "hi" })).status).toBe(402);
  });

  it("50 concurrent sends on a nearly empty wallet: exactly the affordable ones are charged, the rest end Blocked with billingStatus", async () => {
    const org = await newOrganization();
    await addNumber(org);
    await setAvailableBalance(org, "0.0500");
    const attempts = await Promise.all(
      Array.from({ length: 50 }, (_, index) => send(org, { to: randomNumber(), body: `Hello ${index}` })),
    );
    const accepted = attempts.filter((attempt) => attempt.status === 202);
    expect(attempts.every((attempt) => attempt.status === 202 || attempt.status === 402)).toBe(true);
    const final = await Promise.all(accepted.map((attempt) => waitForMessage(org, attempt.body.id, settled, 30_000)));
    const charged = final.filter((message) => message.billingStatus === "Charged");
    const blocked = final.filter((message) => message.status === "Blocked");
    expect(charged).toHaveLength(5);
    expect(charged.every((message) => message.status === "Delivered")).toBe(true);
    expect(blocked).toHaveLength(accepted.length - 5);
    expect(
      blocked.every(
        (message) => message.billingStatus === "InsufficientFunds" && message.complianceAction === "BillingBlocked",
      ),
    ).toBe(true);
    const wallet = (await org.request("GET", "/billing/wallet")).body;
    expect(wallet).toMatchObject({
      balance: "0.0000",
      reservedAmount: "0.0000",
      availableBalance: "0.0000",
      status: "Empty",
    });
    const ledger = await allLedgerEntries(org);
    expect(Money.toBilling(Money.sum(ledger.map((entry) => entry.amount)))).toBe(wallet.balance);
    expect((await send(org, { to: randomNumber(), body: "one more" })).status).toBe(402);
  });
});
