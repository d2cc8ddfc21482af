import { describe, expect, it } from "vitest";
import { config } from "#core/config";
import * as Outbound from "#core/messaging/outbound";
import { sweepDueMessages } from "#core/messaging/sweeper";
import { CarrierCallbacks } from "#core/messaging/carrier-callbacks";
import { statusCallbackUrl } from "#core/providers/index";
import type { WebhookRequest } from "#core/providers/port";
import { signedPost, simulatorAuthToken } from "#core/providers/simulator/adapter";
import { allLedgerEntries } from "#tests/helpers/billing";
import { dieAfterWriting } from "#tests/helpers/crash";
import { addNumber, magic, queuedOutsideTheStack, send, waitForMessage } from "#tests/helpers/messaging";
import { applyStackEnv, newOrganization, type TestOrganization } from "#tests/helpers/stack";

/** A message handed to the carrier that never gets a final receipt (simulator scenario 08): Sent, holding its cost. */
async function sentAndHolding(org: TestOrganization) {
  await addNumber(org);
  const accepted = await send(org, { to: magic("08"), body: "crash me" });
  expect(accepted.status).toBe(202);
  // With its provider id, stored just after the hand-off (the Sent callback may come first): the receipt timeout ends
  // a message without one Failed (NotAcceptedByCarrier), not Unknown.
  return waitForMessage(
    org,
    accepted.body.id,
    (message) =>
      message.status === "Sent" && message.billingStatus === "Reserved" && message.providerMessageId !== null,
  );
}

/** The carrier's signed status callback, captured instead of posted, to hand to core in this process. */
async function signedStatusCallback(
  message: { id: string; providerMessageId: string; fromPhoneNumber: string; toPhoneNumber: string },
  status: string,
) {
  let captured: WebhookRequest | undefined;
  await signedPost(
    simulatorAuthToken(config.tokenSigningKey),
    statusCallbackUrl("simulator", message.id),
    [
      ["MessageSid", message.providerMessageId],
      ["MessageStatus", status],
      ["From", message.fromPhoneNumber],
      ["To", message.toPhoneNumber],
    ],
    async (url, init) => {
      captured = { url: String(url), headers: init!.headers as Record<string, string>, body: String(init!.body) };
      return new Response(null, { status: 204 });
    },
  );
  return captured!;
}

async function expectNoHold(
  org: TestOrganization,
  messageId: string,
  billing: { billingStatus: string; charged: boolean },
) {
  const message = (await org.request("GET", `/messages/${messageId}`)).body;
  expect(message.billingStatus).toBe(billing.billingStatus);
  const wallet = (await org.request("GET", "/billing/wallet")).body;
  expect(wallet.reservedAmount).toBe("0.0000");
  const charges = (await allLedgerEntries(org)).filter((entry) => entry.messageId === messageId);
  expect(charges).toHaveLength(billing.charged ? 1 : 0);
}

describe("a crash right after a message's final status is written leaves no money out of step", () => {
  applyStackEnv();

  it("a Delivered receipt: the process dies after the status write; the message is already charged and holds nothing", async () => {
    const org = await newOrganization();
    const sent = await sentAndHolding(org);
    const callback = await signedStatusCallback(sent, "delivered");
    await dieAfterWriting(["Delivered"], () => CarrierCallbacks.messageStatus("simulator", callback));
    expect((await org.request("GET", `/messages/${sent.id}`)).body.status).toBe("Delivered");
    await expectNoHold(org, sent.id, { billingStatus: "Charged", charged: true });
  });

  it("a permanent provider refusal: the process dies after Failed is written; the hold is already released", async () => {
    const org = await newOrganization();
    await addNumber(org);
    const queued = await queuedOutsideTheStack(org, magic("07"), "invalid");
    await dieAfterWriting(["Failed"], () => Outbound.dispatch(org.organizationId, queued));
    expect((await org.request("GET", `/messages/${queued.id}`)).body.status).toBe("Failed");
    await expectNoHold(org, queued.id, { billingStatus: "Released", charged: false });
  });

  it("the receipt timeout: the process dies after Unknown is written; the message is already charged", async () => {
    const org = await newOrganization();
    const sent = await sentAndHolding(org);
    await dieAfterWriting(["Unknown"], () =>
      sweepDueMessages({ now: new Date(Date.now() + 73 * 3_600_000), organizationId: org.organizationId }),
    );
    expect((await org.request("GET", `/messages/${sent.id}`)).body.status).toBe("Unknown");
    await expectNoHold(org, sent.id, { billingStatus: "Charged", charged: true });
  });

  it("a claim (Sending) that died before the carrier answered is not charged for it: the carrier never took it, so it is sent again and charged once", async () => {
    const org = await newOrganization();
    await addNumber(org);
    const queued = await queuedOutsideTheStack(org, magic("00"), "lost hand-off");
    await dieAfterWriting(["Sending"], () => Outbound.dispatch(org.organizationId, queued));
    expect((await org.request("GET", `/messages/${queued.id}`)).body).toMatchObject({
      status: "Sending",
      providerMessageId: null,
      billingStatus: "Reserved",
    });
    // Past its hand-off lease the sweep asks the carrier by our id; it has nothing, so the message is queued again.
    expect(
      await sweepDueMessages({ now: new Date(Date.now() + 3 * 60_000), organizationId: org.organizationId }),
    ).toMatchObject({ resent: 1 });
    const delivered = await waitForMessage(
      org,
      queued.id,
      (message) => message.status === "Delivered" && message.billingStatus === "Charged",
    );
    expect(delivered).toMatchObject({ retryCount: 1, providerMessageId: expect.any(String) });
    await expectNoHold(org, queued.id, { billingStatus: "Charged", charged: true });
  });
});
