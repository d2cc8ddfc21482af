import { describe, expect, it } from "vitest";
import * as Outbound from "#core/messaging/outbound";
import { twilioSignature } from "#core/providers/twilio/signature";
import { allLedgerEntries } from "#tests/helpers/billing";
import { buyNumber, carrierRequests, onCarrier, scriptCarrier } from "#tests/helpers/carriers";
import { randomNumber, send, waitForMessage } from "#tests/helpers/messaging";
import { newOrganization, type TestOrganization } from "#tests/helpers/stack";
import { TWILIO_FAKE } from "#tests/setup/carrier-fakes";

/**
 * Per-organization failover (messaging settings `failoverProvider`): Telnyx is
 * the organization's provider and Twilio its failover, both local REST fakes
 * that record every request. Whatever happens, at most one of them accepts a
 * message.
 */

async function failoverOrganization(): Promise<{ org: TestOrganization; ours: { phoneNumber: string } }> {
  const org = await newOrganization();
  await onCarrier(org, "telnyx", { failoverProvider: "twilio" });
  return { org, ours: await buyNumber(org) };
}

/** Each fake's sends to `to`, as `carrier status`. */
async function sendsTo(to: string): Promise<string[]> {
  const requests = await carrierRequests(to);
  return requests
    .filter((request) => request.method === "POST" && /\/messages|Messages\.json/.test(request.path))
    .map((request) => `${request.carrier} ${request.answered}`);
}

describe("failover to a second provider", () => {
  it("a transient refusal by the primary (503) is sent once through the failover, whose receipt makes it Delivered, billed once", async () => {
    const { org, ours } = await failoverOrganization();
    const to = randomNumber("312");
    await scriptCarrier("telnyx", to, [
      { error: { status: 503, code: "10007", detail: "Unexpected error, try again" } },
    ]);
    const accepted = await send(org, { to, body: "Through whichever carrier can" });
    const sending = await waitForMessage(
      org,
      accepted.body.id,
      (message) => message.status === "Sending" && message.providerMessageId,
    );
    expect(sending).toMatchObject({
      provider: "twilio",
      failedOverFrom: "telnyx",
      providerMessageId: expect.stringMatching(/^SM/),
      errorCode: "10007",
      retryCount: 0,
    });
    expect(await sendsTo(to)).toEqual(["telnyx 503", "twilio 201"]);
    // A redelivered queue message holding the stale Queued read (a consumer that crashed mid-way) cannot claim it again.
    await Outbound.dispatch(org.organizationId, {
      ...sending,
      status: "Queued",
      provider: null,
      providerMessageId: null,
    });
    expect(await sendsTo(to)).toEqual(["telnyx 503", "twilio 201"]);

    const [twilioSend] = (await carrierRequests(to)).filter((request) => request.carrier === "twilio");
    const form = new Map(twilioSend!.body as [string, string][]);
    expect([...form.keys()]).toEqual(["To", "From", "Body", "StatusCallback"]);
    expect(form.get("From")).toBe(ours.phoneNumber);
    const callback = form.get("StatusCallback")!;
    expect(callback).toContain(`/webhooks/twilio/messages/status?messageId=${accepted.body.id}`);
    const receipt: [string, string][] = [
      ["AccountSid", TWILIO_FAKE.accountSid],
      ["MessageSid", sending.providerMessageId],
      ["MessageStatus", "delivered"],
      ["From", ours.phoneNumber],
      ["To", to],
    ];
    const posted = await fetch(callback, {
      method: "POST",
      headers: {
        "content-type": "application/x-www-form-urlencoded",
        "x-twilio-signature": twilioSignature(TWILIO_FAKE.authToken, callback, receipt),
      },
      body: new URLSearchParams(receipt).toString(),
    });
    expect(posted.status).toBe(200);
    expect(await waitForMessage(org, accepted.body.id)).toMatchObject({
      status: "Delivered",
      provider: "twilio",
      billingStatus: "Charged",
    });
    expect(
      (await allLedgerEntries(org)).filter(
        (entry) => entry.messageId === accepted.body.id && entry.entryType === "Charge",
      ),
    ).toHaveLength(1);
  });

  it.each([
    ["a permanent refusal (10002 invalid number)", { status: 422, code: "10002" }, "Failed", "10002"],
    ["an opted-out recipient (40300)", { status: 400, code: "40300" }, "Failed", "40300"],
  ] as const)(
    "%s never fails over: the message ends as the primary said",
    async (_name, refusal, status, errorCode) => {
      const { org } = await failoverOrganization();
      const to = randomNumber("312");
      await scriptCarrier("telnyx", to, [{ error: refusal }]);
      const accepted = await send(org, { to, body: "Refused" });
      const ended = await waitForMessage(org, accepted.body.id);
      expect(ended).toMatchObject({ status, errorCode, provider: "telnyx", billingStatus: "Released" });
      expect(ended.failedOverFrom).toBeUndefined();
      expect(await sendsTo(to)).toEqual([`telnyx ${refusal.status}`]);
    },
  );

  it("an ambiguous outcome (connection lost after the request was sent) never fails over: it waits for the primary's receipt", async () => {
    const { org } = await failoverOrganization();
    const to = randomNumber("312");
    await scriptCarrier("telnyx", to, [{ dropConnection: true }]);
    const accepted = await send(org, { to, body: "Maybe sent" });
    const waiting = await waitForMessage(
      org,
      accepted.body.id,
      (message) => message.status === "Sending" && message.errorCode === "network_error",
    );
    expect(waiting.failedOverFrom).toBeUndefined();
    expect(waiting).toMatchObject({
      provider: "telnyx",
      providerMessageId: null,
      statusReason: expect.stringMatching(/^Provider outcome unknown/),
    });
    expect(await sendsTo(to)).toEqual(["telnyx dropped"]);
  });

  it("an ambiguous outcome at the failover leaves the message at the failover (the provider that may hold it), never handed over again", async () => {
    const { org } = await failoverOrganization();
    const to = randomNumber("312");
    await scriptCarrier("telnyx", to, [{ error: { status: 503, code: "10007" } }]);
    await scriptCarrier("twilio", to, [{ dropConnection: true }]);
    const accepted = await send(org, { to, body: "Maybe at the second carrier" });
    const waiting = await waitForMessage(
      org,
      accepted.body.id,
      (message) => message.status === "Sending" && message.errorCode === "network_error",
    );
    expect(waiting).toMatchObject({
      provider: "twilio",
      failedOverFrom: "telnyx",
      providerMessageId: null,
      retryCount: 0,
    });
    await Outbound.dispatch(org.organizationId, { ...waiting, status: "Queued" });
    expect(await sendsTo(to)).toEqual(["telnyx 503", "twilio dropped"]);
  });

  it("both providers refusing for now is one retry later, starting again at the primary: still exactly one accepted send", async () => {
    const { org } = await failoverOrganization();
    const to = randomNumber("312");
    await scriptCarrier("telnyx", to, [{ error: { status: 429, code: "10011" } }]);
    await scriptCarrier("twilio", to, [{ error: { status: 503, code: "20503" } }]);
    const accepted = await send(org, { to, body: "Eventually" });
    const sending = await waitForMessage(
      org,
      accepted.body.id,
      (message) => message.status === "Sending" && message.providerMessageId,
      30_000,
    );
    expect(sending).toMatchObject({ provider: "telnyx", retryCount: 1 });
    // The retry's claim started at the primary again: the first attempt's failover is history.
    expect(sending.failedOverFrom).toBeUndefined();
    expect(await sendsTo(to)).toEqual(["telnyx 429", "twilio 503", "telnyx 200"]);
  });
});

describe("failover setting", () => {
  it("is off by default, must be configured and differ from the organization's provider", async () => {
    const org = await newOrganization();
    expect((await org.request("GET", "/messaging/settings")).body.failoverProvider).toBeNull();
    const same = await org.request("PUT", "/messaging/settings", {
      body: { provider: "telnyx", failoverProvider: "telnyx" },
    });
    expect(same.status).toBe(400);
    expect(same.body.errors).toEqual([
      expect.objectContaining({
        pointer: "/failoverProvider",
        detail: expect.stringMatching(/already the organization's provider/),
      }),
    ]);
    // null provider = the deployment's (the simulator here).
    expect((await org.request("PUT", "/messaging/settings", { body: { failoverProvider: "simulator" } })).status).toBe(
      400,
    );
    expect((await org.request("PUT", "/messaging/settings", { body: { failoverProvider: "pigeon" } })).status).toBe(
      400,
    );
    const chosen = await org.request("PUT", "/messaging/settings", {
      body: { provider: "telnyx", failoverProvider: "twilio" },
    });
    expect(chosen.status).toBe(200);
    expect(chosen.body).toMatchObject({ provider: "telnyx", failoverProvider: "twilio" });
  });
});
