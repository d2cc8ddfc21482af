import { describe, expect, it } from "vitest";
import { sweepDueMessages } from "#core/messaging/sweeper";
import * as Money from "#core/shared/money";
import { allLedgerEntries, balanceLess } from "#tests/helpers/billing";
import { postSigned } from "#tests/helpers/calls";
import { addNumber, eventsWhen, magic, send, sleep, waitForMessage } from "#tests/helpers/messaging";
import { baseUrl, newOrganization, type TestOrganization } from "#tests/helpers/stack";

const HOUR = 3_600_000;
const sweepAt = (org: TestOrganization, hoursFromNow: number) =>
  sweepDueMessages({ now: new Date(Date.now() + hoursFromNow * HOUR), organizationId: org.organizationId });

/** The simulator answers a lookup from the time since hand-off: its lost final receipt is due within a second. */
const untilTheCarrierHasFinished = () => sleep(1_000);

/** Until the simulator's posted callbacks have arrived (the lost one never does). */
const sentWithProviderId = (message: any) => message.status === "Sent" && message.providerMessageId !== null;

describe("messages: receipts that never come are looked up at the carrier", () => {
  it("a delivered message whose receipt was lost is Delivered after the lookup, charged once even when the receipt arrives late", async () => {
    const org = await newOrganization();
    const ours = await addNumber(org);
    const expected = await balanceLess(org, "0.01");
    const accepted = await send(org, { to: magic("12"), body: "lost receipt" });
    const sent = await waitForMessage(org, accepted.body.id, sentWithProviderId);
    expect(sent.billingStatus).toBe("Reserved");
    // Before the first lookup (2 min after the hand-off) nothing is asked.
    expect(await sweepAt(org, 1 / 60)).toMatchObject({ reconciled: 0, rechecked: 0, expired: 0 });
    await untilTheCarrierHasFinished();
    expect(await sweepAt(org, 1.1)).toMatchObject({ reconciled: 1, expired: 0 });
    const delivered = await waitForMessage(org, sent.id);
    expect(delivered).toMatchObject({
      status: "Delivered",
      providerStatus: "delivered",
      billingStatus: "Charged",
      billableAmount: 0.01,
      deliveredAt: expect.any(String),
    });
    expect(await sweepAt(org, 80)).toMatchObject({ reconciled: 0, expired: 0 });

    // The lost callback turns up after all: nothing changes, nothing more is charged.
    const late = await postSigned(`${baseUrl()}/webhooks/simulator/messages/status?messageId=${sent.id}`, {
      AccountSid: "ACsimulator000000000000000000000000",
      MessageSid: sent.providerMessageId,
      MessageStatus: "delivered",
      From: ours.phoneNumber,
      To: magic("12"),
    });
    expect(late.status).toBe(200);
    expect(await waitForMessage(org, sent.id)).toEqual(delivered);
    const ledger = await allLedgerEntries(org);
    expect(ledger.filter((entry) => entry.messageId === sent.id)).toEqual([
      expect.objectContaining({ entryType: "Charge", reason: "SmsSegments", amount: "-0.0100" }),
    ]);
    const wallet = (await org.request("GET", "/billing/wallet")).body;
    expect(wallet).toMatchObject({ balance: expected, reservedAmount: "0.0000" });
    expect(Money.toBilling(Money.sum(ledger.map((entry) => entry.amount)))).toBe(wallet.balance);
    const timeline = await eventsWhen(org, {}, (items) =>
      items.some((event) => event.relatedEntityId === sent.id && event.eventType === "MessageDelivered"),
    );
    expect(
      timeline.filter((event) => event.relatedEntityId === sent.id && event.eventType === "MessageDelivered"),
    ).toHaveLength(1);
  });

  it("an undelivered message whose receipt was lost ends Undelivered with the carrier's error, settled as its callback would be", async () => {
    const org = await newOrganization();
    await addNumber(org);
    // The carrier charges an undelivered send (it left for the handset): so do we, as for the callback.
    const expected = await balanceLess(org, "0.01");
    const accepted = await send(org, { to: magic("13"), body: "lost failure" });
    const sent = await waitForMessage(org, accepted.body.id, sentWithProviderId);
    await untilTheCarrierHasFinished();
    expect(await sweepAt(org, 1.1)).toMatchObject({ reconciled: 1 });
    const undelivered = await waitForMessage(org, sent.id, (message) => message.billingStatus !== "Reserved");
    expect(undelivered).toMatchObject({
      status: "Undelivered",
      errorCode: "30003",
      statusReason: "Provider reported undelivered (30003).",
      billingStatus: "Charged",
      billableAmount: 0.01,
    });
    expect((await org.request("GET", "/billing/wallet")).body).toMatchObject({
      balance: expected,
      reservedAmount: "0.0000",
    });
    const timeline = await eventsWhen(org, {}, (items) =>
      items.some((event) => event.relatedEntityId === sent.id && event.eventType === "MessageUndelivered"),
    );
    expect(
      timeline.filter((event) => event.relatedEntityId === sent.id && event.eventType === "MessageUndelivered"),
    ).toHaveLength(1);
  });

  it("asks again at doubling intervals while the carrier says sent, and only then turns the message Unknown, saying so", async () => {
    const org = await newOrganization();
    await addNumber(org);
    const accepted = await send(org, { to: magic("08"), body: "no receipt anywhere" });
    const sent = await waitForMessage(org, accepted.body.id, sentWithProviderId);
    expect(await sweepAt(org, 1.1)).toMatchObject({ rechecked: 1, reconciled: 0, expired: 0 });
    // Next lookup at about 2.2 h, not sooner.
    expect(await sweepAt(org, 2)).toMatchObject({ rechecked: 0 });
    expect(await sweepAt(org, 2.5)).toMatchObject({ rechecked: 1 });
    expect((await org.request("GET", `/messages/${sent.id}`)).body).toMatchObject({
      status: "Sent",
      billingStatus: "Reserved",
    });
    expect(await sweepAt(org, 73)).toMatchObject({ expired: 1 });
    const unknown = await waitForMessage(org, sent.id, (message) => message.billingStatus !== "Reserved");
    expect(unknown).toMatchObject({
      status: "Unknown",
      statusReason: "No final delivery receipt within 72 hours. The carrier still reports sent.",
    });
  });
});
