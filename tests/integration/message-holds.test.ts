import { describe, expect, it } from "vitest";
import * as Outbound from "#core/messaging/outbound";
import { changeMessage, storedHoldOnMessage } from "#core/messaging/store";
import * as Billing from "#core/billing/index";
import { readTogether } from "#core/db/items";
import { reserveForMessage } from "#core/messaging/billing-seam";
import * as MessageLifecycle from "#core/messaging/lifecycle";
import { settlementRead } from "#core/messaging/lifecycle";
import { storedReservation } from "#core/billing/reservations";
import { allLedgerEntries } from "#tests/helpers/billing";
import { addNumber, randomNumber, send, waitForMessage } from "#tests/helpers/messaging";
import { applyStackEnv, newOrganization, type TestOrganization } from "#tests/helpers/stack";
import type { Message } from "#core/messaging/model";

/**
 * A message as the consumer reads it Queued (as after the sweeper releases it), that no consumer touches meanwhile:
 * sent a day ahead, so it waits in the due index, then moved to Queued by hand.
 */
async function queuedForTheTest(org: TestOrganization, body: string): Promise<Message> {
  const accepted = await send(org, {
    to: randomNumber(),
    body,
    scheduledFor: new Date(Date.now() + 86_400_000).toISOString(),
  });
  expect(accepted.status).toBe(202);
  await waitForMessage(org, accepted.body.id, (message) => message.status === "Scheduled");
  const queued = await changeMessage(org.organizationId, accepted.body.id, {
    from: ["Scheduled"],
    set: { status: "Queued", queuedAt: new Date().toISOString() },
  });
  expect(queued?.status).toBe("Queued");
  return queued!;
}

describe("message holds", () => {
  it("a message canceled after the consumer read it Queued takes no hold from that consumer (reserved stays 0, nothing is charged)", async () => {
    const org = await newOrganization();
    await addNumber(org);
    const wallet = async () => (await org.request("GET", "/billing/wallet")).body;
    const before = await wallet();
    // The consumer's read: the message is Queued.
    const queued = await queuedForTheTest(org, "hello");
    // The caller cancels before the consumer takes the hold: the cancellation finds nothing to release.
    const canceled = await org.request("POST", `/messages/${queued.id}/cancel`, { body: {} });
    expect(canceled.status).toBe(200);
    expect((await wallet()).reservedAmount).toBe("0.0000");
    // The consumer goes on with its stale read: its hold is refused (the hold on a message is taken only before it is
    // handed over or ended), and it stops there.
    await Outbound.dispatch(org.organizationId, queued);

    const after = await wallet();
    expect(after).toMatchObject({
      reservedAmount: "0.0000",
      balance: before.balance,
      availableBalance: before.availableBalance,
    });
    const message = (await org.request("GET", `/messages/${queued.id}`)).body;
    // As any message canceled before it was held: nothing billed.
    expect(message).toMatchObject({
      status: "Canceled",
      billingStatus: null,
      billableAmount: null,
      providerMessageId: null,
    });
    expect((await allLedgerEntries(org)).filter((entry) => entry.messageId === queued.id)).toEqual([]);
  });

  it("a message held before holds were kept on messages (a Reservation item) is sent and charged from that hold, never held twice", async () => {
    const org = await newOrganization();
    await addNumber(org);
    applyStackEnv();
    const wallet = async () => (await org.request("GET", "/billing/wallet")).body;
    const queued = await queuedForTheTest(org, "held the old way");
    // Its hold as the version before took it: a Reservation item keyed by the message id.
    await Billing.reserve({
      organizationId: org.organizationId,
      reservationId: queued.id,
      amount: "0.0075",
      relatedEntityType: "Message",
    });
    expect((await wallet()).reservedAmount).toBe("0.0075");
    await Outbound.dispatch(org.organizationId, queued);
    expect(await storedHoldOnMessage(org.organizationId, queued.id)).toBeUndefined();
    expect((await wallet()).reservedAmount).toBe("0.0075");

    const delivered = await waitForMessage(
      org,
      queued.id,
      (message) => message.status === "Delivered" && message.billingStatus === "Charged",
    );
    expect(delivered.billableAmount).toBe(0.0075);
    expect((await storedReservation(org.organizationId, queued.id))?.state).toBe("Settled");
    expect((await wallet()).reservedAmount).toBe("0.0000");
    const charges = (await allLedgerEntries(org)).filter((entry) => entry.messageId === queued.id);
    expect(charges).toHaveLength(1);
  });

  it("an ending planned from a read taken before the message was held still gives the hold back", async () => {
    const org = await newOrganization();
    await addNumber(org);
    applyStackEnv();
    const queued = await queuedForTheTest(org, "ends while held");
    const [stale] = await readTogether([settlementRead(org.organizationId, queued.id)]);
    expect((await reserveForMessage(org.organizationId, queued)).allowed).toBe(true);
    expect((await org.request("GET", "/billing/wallet")).body.reservedAmount).not.toBe("0.0000");
    const ended = await MessageLifecycle.finish(
      org.organizationId,
      queued,
      { from: ["Queued"], set: { status: "Failed", failedAt: new Date().toISOString() }, due: null },
      {},
      stale,
    );
    expect(ended?.message.status).toBe("Failed");
    expect(await storedHoldOnMessage(org.organizationId, queued.id)).toBeUndefined();
    expect((await org.request("GET", "/billing/wallet")).body.reservedAmount).toBe("0.0000");
    expect((await org.request("GET", `/messages/${queued.id}`)).body).toMatchObject({
      status: "Failed",
      billingStatus: "Released",
    });
  });
});
