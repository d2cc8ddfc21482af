import { describe, expect, it } from "vitest";
import { Outbound } from "#core/messaging/outbound";
import { changeMessage } from "#core/messaging/store";
import { allLedgerEntries } from "#tests/helpers/billing";
import { addNumber, randomNumber, send, waitForMessage } from "#tests/helpers/messaging";
import { newOrganization } from "#tests/helpers/stack";

describe("message holds", () => {
  it("a message canceled after the consumer read it Queued but before its claim gives its hold back (reserved returns to 0)", async () => {
    const org = await newOrganization();
    await addNumber(org);
    const wallet = async () => (await org.request("GET", "/billing/wallet")).body;
    const before = await wallet();
    // A send a day ahead waits in the due index, so no consumer touches it while the test plays the consumer.
    const accepted = await send(org, {
      to: randomNumber(),
      body: "hello",
      scheduledFor: new Date(Date.now() + 86_400_000).toISOString(),
    });
    expect(accepted.status).toBe(202);
    await waitForMessage(org, accepted.body.id, (message) => message.status === "Scheduled");

    // The consumer's read: the message is Queued (as after the sweeper releases it).
    const queued = await changeMessage(org.organizationId, accepted.body.id, {
      from: ["Scheduled"],
      set: { status: "Queued", queuedAt: new Date().toISOString() },
    });
    expect(queued?.status).toBe("Queued");
    // The caller cancels before the consumer takes the hold: the cancellation finds nothing to release.
    const canceled = await org.request("POST", `/messages/${accepted.body.id}/cancel`, { body: {} });
    expect(canceled.status).toBe(200);
    expect((await wallet()).reservedAmount).toBe("0.0000");
    // The consumer goes on with its stale read: it takes the hold, then its claim (Queued → Sending) fails.
    await Outbound.dispatch(org.organizationId, queued!);

    const after = await wallet();
    expect(after).toMatchObject({
      reservedAmount: "0.0000",
      balance: before.balance,
      availableBalance: before.availableBalance,
    });
    const message = (await org.request("GET", `/messages/${accepted.body.id}`)).body;
    expect(message).toMatchObject({
      status: "Canceled",
      billingStatus: "Released",
      billableAmount: 0,
      providerMessageId: null,
    });
    expect((await allLedgerEntries(org)).filter((entry) => entry.messageId === accepted.body.id)).toEqual([]);
  });
});
