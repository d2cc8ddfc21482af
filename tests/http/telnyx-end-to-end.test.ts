import { describe, expect, it } from "vitest";
import { allLedgerEntries } from "#tests/helpers/billing";
import { readCall } from "#core/calls/store";
import { sweepDueCalls } from "#core/calls/sweeper";
import { sweepDueMessages } from "#core/messaging/sweeper";
import { waitForCall } from "#tests/helpers/calls";
import {
  buyNumber,
  carrierRequests,
  holdAtTelnyx,
  onCarrier,
  postTelnyxWebhook,
  setTelnyxRecord,
  telnyxEvent,
} from "#tests/helpers/carriers";
import { eventsWhen, randomNumber, send, waitForMessage } from "#tests/helpers/messaging";
import { baseUrl, newOrganization, type TestOrganization } from "#tests/helpers/stack";

/**
 * Telnyx end to end through the HTTP API: the organization's provider is
 * Telnyx, whose REST API is the local fake (tests/setup/carrier-fakes.ts,
 * checking each request as Telnyx documents it) and whose webhooks the test
 * posts signed with the account's Ed25519 key.
 */

const TELNYX_BEARER = "Bearer KEYfake0123";

async function telnyxOrganization(): Promise<{ org: TestOrganization; ours: { id: string; phoneNumber: string } }> {
  const org = await newOrganization();
  await onCarrier(org, "telnyx");
  return { org, ours: await buyNumber(org) };
}

/** A message.finalized / message.sent receipt of an outbound message, as Telnyx posts it to the per-message webhook_url. */
function receipt(
  eventType: "message.sent" | "message.finalized",
  providerMessageId: string,
  from: string,
  to: string,
  status: string,
  errors: unknown[] = [],
) {
  return telnyxEvent(eventType, {
    id: providerMessageId,
    record_type: "message",
    direction: "outbound",
    type: "SMS",
    parts: 1,
    errors,
    from: { phone_number: from },
    to: [{ phone_number: to, status }],
  });
}

describe("Telnyx end to end: numbers", () => {
  it("searches, buys (joined to the TeXML application and messaging profile) and releases a number at Telnyx", async () => {
    const org = await newOrganization();
    await onCarrier(org, "telnyx");
    const found = await org.request(
      "GET",
      "/available-phone-numbers?areaCode=718&region=NY&capabilities=sms,mms&limit=2",
    );
    expect(found.status).toBe(200);
    expect(found.body.items).toEqual([
      {
        phoneNumber: expect.stringMatching(/^\+1718\d{7}$/),
        region: "NY",
        locality: "NEW YORK",
        capabilities: ["sms", "mms", "voice"],
      },
      {
        phoneNumber: expect.stringMatching(/^\+1718\d{7}$/),
        region: "NY",
        locality: "NEW YORK",
        capabilities: ["sms", "mms", "voice"],
      },
    ]);
    const chosen = found.body.items[0].phoneNumber as string;
    const bought = await org.request("POST", "/phone-numbers", { body: { phoneNumber: chosen, purchase: true } });
    expect(bought.status).toBe(201);
    expect((await allLedgerEntries(org)).filter((entry) => entry.reason === "PhoneNumberMonthly")).toHaveLength(1);
    expect((await org.request("DELETE", `/phone-numbers/${bought.body.id}`)).status).toBe(204);

    const requests = await carrierRequests(chosen);
    expect(
      requests.map(({ method, path, authorization, body, answered }) => ({
        method,
        path,
        authorization,
        body,
        answered,
      })),
    ).toEqual([
      {
        method: "POST",
        path: "/v2/number_orders",
        authorization: TELNYX_BEARER,
        body: {
          phone_numbers: [{ phone_number: chosen }],
          connection_id: "1894000000",
          messaging_profile_id: "40017f4a-0000-4000-8000-000000000001",
        },
        answered: 200,
      },
    ]);
    // The order's items are not phone number resources: the release looks the number up, then deletes that resource.
    const lookups = await carrierRequests(encodeURIComponent(chosen));
    expect(lookups.map(({ method, path, authorization }) => ({ method, path, authorization }))).toEqual([
      {
        method: "GET",
        path: `/v2/phone_numbers?${new URLSearchParams([["filter[phone_number]", chosen]])}`,
        authorization: TELNYX_BEARER,
      },
    ]);
    // The number is gone at Telnyx: registering it again (bring your own) is refused, since the account no longer holds it.
    expect((await org.request("POST", "/phone-numbers", { body: { phoneNumber: chosen } })).status).toBe(422);
  });
});

describe("Telnyx end to end: bring your own number", () => {
  it("registers a number only when the Telnyx account holds it, and attaches it to the TeXML application and messaging profile", async () => {
    const org = await newOrganization();
    await onCarrier(org, "telnyx");
    const theirs = randomNumber("917");
    expect((await org.request("POST", "/phone-numbers", { body: { phoneNumber: theirs } })).status).toBe(422);
    const ours = randomNumber("917");
    const numberId = await holdAtTelnyx(ours);
    const registered = await org.request("POST", "/phone-numbers", { body: { phoneNumber: ours } });
    expect(registered.status).toBe(201);
    const lookup = (await carrierRequests(encodeURIComponent(ours))).map(
      ({ method, path, authorization, answered }) => ({ method, path, authorization, answered }),
    );
    expect(lookup).toEqual([
      {
        method: "GET",
        path: `/v2/phone_numbers?${new URLSearchParams([["filter[phone_number]", ours]])}`,
        authorization: TELNYX_BEARER,
        answered: 200,
      },
    ]);
    const attached = (await carrierRequests(`/v2/phone_numbers/${numberId}`)).map(
      ({ method, path, body, authorization, answered }) => ({ method, path, body, authorization, answered }),
    );
    expect(attached).toEqual([
      {
        method: "PATCH",
        path: `/v2/phone_numbers/${numberId}`,
        body: { connection_id: "1894000000" },
        authorization: TELNYX_BEARER,
        answered: 200,
      },
      {
        method: "PATCH",
        path: `/v2/phone_numbers/${numberId}/messaging`,
        body: { messaging_profile_id: "40017f4a-0000-4000-8000-000000000001" },
        authorization: TELNYX_BEARER,
        answered: 200,
      },
    ]);
  });
});

describe("Telnyx end to end: messages", () => {
  it("sends through POST /v2/messages, a signed delivery receipt makes it Delivered, billed exactly once", async () => {
    const { org, ours } = await telnyxOrganization();
    const to = randomNumber("312");
    const accepted = await send(org, { to, body: "Hi from Telnyx" });
    expect(accepted.status).toBe(202);
    const sent = await waitForMessage(
      org,
      accepted.body.id,
      (message) => message.status === "Sending" && message.providerMessageId,
    );
    expect(sent).toMatchObject({ provider: "telnyx", fromPhoneNumber: ours.phoneNumber });

    const [request] = await carrierRequests(to);
    const webhookUrl = `${baseUrl()}/webhooks/telnyx/messages/status?messageId=${accepted.body.id}`;
    expect(request).toEqual({
      carrier: "telnyx",
      at: expect.any(Number),
      method: "POST",
      path: "/v2/messages",
      authorization: TELNYX_BEARER,
      contentType: "application/json",
      body: {
        from: ours.phoneNumber,
        to,
        text: "Hi from Telnyx",
        webhook_url: expect.stringMatching(new RegExp(`^${webhookUrl.replace(/[.?]/g, "\\$&")}`)),
      },
      answered: 200,
    });
    const callback = (request!.body as { webhook_url: string }).webhook_url;

    expect(
      (await postTelnyxWebhook(callback, receipt("message.sent", sent.providerMessageId, ours.phoneNumber, to, "sent")))
        .status,
    ).toBe(200);
    const delivered = receipt("message.finalized", sent.providerMessageId, ours.phoneNumber, to, "delivered");
    expect((await postTelnyxWebhook(callback, delivered)).status).toBe(200);
    // Telnyx retries a webhook it thinks failed: the same event again changes nothing.
    expect((await postTelnyxWebhook(callback, delivered)).status).toBe(200);
    const final = await waitForMessage(org, accepted.body.id);
    expect(final).toMatchObject({ status: "Delivered", providerStatus: "delivered", billingStatus: "Charged" });
    const charges = (await allLedgerEntries(org)).filter((entry) => entry.messageId === accepted.body.id);
    expect(charges).toEqual([expect.objectContaining({ entryType: "Charge", reason: "SmsSegments" })]);
    expect(await carrierRequests(to)).toHaveLength(1);
  });

  it("a failed receipt (40008) ends the message Undelivered, charged once like any message the carrier took", async () => {
    const { org, ours } = await telnyxOrganization();
    const to = randomNumber("312");
    const accepted = await send(org, { to, body: "Will not arrive" });
    const sent = await waitForMessage(
      org,
      accepted.body.id,
      (message) => message.status === "Sending" && message.providerMessageId,
    );
    const failed = receipt("message.finalized", sent.providerMessageId, ours.phoneNumber, to, "delivery_failed", [
      { code: "40008", title: "Undeliverable" },
    ]);
    expect(
      (await postTelnyxWebhook(`/webhooks/telnyx/messages/status?messageId=${accepted.body.id}`, failed)).status,
    ).toBe(200);
    expect(await waitForMessage(org, accepted.body.id)).toMatchObject({
      status: "Undelivered",
      errorCode: "40008",
      billingStatus: "Charged",
    });
    expect(
      (await allLedgerEntries(org)).filter(
        (entry) => entry.messageId === accepted.body.id && entry.entryType === "Charge",
      ),
    ).toHaveLength(1);
  });

  it("refuses a webhook whose signature does not match, or that is not signed (403), and changes nothing", async () => {
    const { org, ours } = await telnyxOrganization();
    const to = randomNumber("312");
    const accepted = await send(org, { to, body: "Hello" });
    const sent = await waitForMessage(
      org,
      accepted.body.id,
      (message) => message.status === "Sending" && message.providerMessageId,
    );
    const path = `/webhooks/telnyx/messages/status?messageId=${accepted.body.id}`;
    const delivered = receipt("message.finalized", sent.providerMessageId, ours.phoneNumber, to, "delivered");
    expect((await postTelnyxWebhook(path, delivered, { signature: "forged" })).status).toBe(403);
    const unsigned = await org.request("POST", path, {
      token: null,
      body: delivered,
      headers: { "content-type": "application/json" },
    });
    expect(unsigned.status).toBe(403);
    expect(unsigned.headers.get("content-type")).toMatch(/application\/problem\+json/);
    const inbound = await postTelnyxWebhook(
      "/webhooks/telnyx/messages/inbound",
      telnyxEvent("message.received", {
        id: "x",
        from: { phone_number: to },
        to: [{ phone_number: ours.phoneNumber }],
        text: "STOP",
      }),
      { signature: "forged" },
    );
    expect(inbound.status).toBe(403);
    expect((await org.request("GET", `/messages/${accepted.body.id}`)).body.status).toBe("Sending");
  });

  it("an inbound text starts a conversation; STOP suppresses the contact and the next send is blocked", async () => {
    const { org, ours } = await telnyxOrganization();
    const contact = randomNumber("646");
    const inbound = (text: string, id = crypto.randomUUID()) =>
      telnyxEvent("message.received", {
        id,
        record_type: "message",
        direction: "inbound",
        type: "SMS",
        parts: 1,
        text,
        media: [],
        from: { phone_number: contact },
        to: [{ phone_number: ours.phoneNumber, status: "webhook_delivered" }],
      });
    const hello = inbound("Is the house still for sale?");
    expect((await postTelnyxWebhook("/webhooks/telnyx/messages/inbound", hello)).status).toBe(200);
    // A redelivery of the same event stores nothing twice.
    expect((await postTelnyxWebhook("/webhooks/telnyx/messages/inbound", hello)).status).toBe(200);
    const received = await eventsWhen(org, {}, (items) => items.some((event) => event.eventType === "MessageReceived"));
    expect(received.filter((event) => event.eventType === "MessageReceived")).toHaveLength(1);
    const conversations = await org.request("POST", "/conversations/all/my", { body: {} });
    expect(conversations.body.items).toEqual([expect.objectContaining({ contactPhoneNumber: contact })]);

    expect((await postTelnyxWebhook("/webhooks/telnyx/messages/inbound", inbound("STOP"))).status).toBe(200);
    const suppression = await waitForSuppression(org, contact);
    expect(suppression).toMatchObject({ phoneNumber: contact, reason: "OptOutKeyword" });
    const blocked = await waitForMessage(
      org,
      (await send(org, { to: contact, body: "Still interested?" })).body.id,
      (message) => ["Blocked", "Delivered", "Failed"].includes(message.status),
    );
    expect(blocked).toMatchObject({ status: "Blocked", complianceAction: "Suppressed" });
    // Nothing but our STOP confirmation reached Telnyx for that contact. The confirmation is queued after the
    // suppression is stored and sent by the queue's consumer, so it may reach Telnyx after the blocked send ended.
    const sendsTo = async () => (await carrierRequests(contact)).filter((request) => request.path === "/v2/messages");
    const deadline = Date.now() + 15_000;
    let sends = await sendsTo();
    while (sends.length === 0 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      sends = await sendsTo();
    }
    expect(sends.map((request) => (request.body as { text: string }).text)).toEqual([
      expect.stringMatching(/unsubscribed|opted out|no more/i),
    ]);
  });
});

async function waitForSuppression(org: TestOrganization, phone: string) {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const { body } = await org.request("POST", "/suppressions/all/my", { body: {} });
    const found = body.items.find((item: { phoneNumber: string }) => item.phoneNumber === phone);
    if (found || Date.now() > deadline) return found;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe("Telnyx end to end: calls", () => {
  it("POST /calls bridges through TeXML: the agent's leg, then the lead's Dial result settle and bill the call once", async () => {
    const { org, ours } = await telnyxOrganization();
    const agent = randomNumber("415");
    const lead = randomNumber("312");
    const accepted = await org.request("POST", "/calls", {
      body: { to: lead, connectTo: agent, whisper: "Lead from Telnyx" },
    });
    expect(accepted.status).toBe(202);
    const queued = await waitForCall(org, accepted.body.id, (call) => Boolean(call.providerId));
    expect(queued).toMatchObject({ provider: "telnyx", providerId: expect.stringMatching(/^v3:/) });

    const [placed] = await carrierRequests(agent);
    expect(placed).toMatchObject({
      method: "POST",
      path: "/v2/texml/calls/1894000000",
      authorization: TELNYX_BEARER,
      contentType: "application/json",
      answered: 200,
    });
    const body = placed!.body as Record<string, string>;
    expect(Object.keys(body).sort()).toEqual([
      "From",
      "StatusCallback",
      "StatusCallbackEvent",
      "StatusCallbackMethod",
      "Texml",
      "TimeLimit",
      "Timeout",
      "To",
    ]);
    expect(body).toMatchObject({
      From: ours.phoneNumber,
      To: agent,
      StatusCallbackMethod: "POST",
      StatusCallbackEvent: "initiated ringing answered completed",
    });
    expect(body.StatusCallback).toContain(`/webhooks/telnyx/calls/status?callId=${accepted.body.id}`);
    expect(body.Texml).toContain("Lead from Telnyx");
    expect(body.Texml).toContain(`callerId="${ours.phoneNumber}"`);
    expect(body.Texml).toContain(`<Number>${lead}</Number>`);
    const dialAction = /action="([^"]+)"/.exec(body.Texml!)![1]!.replaceAll("&amp;", "&");
    expect(dialAction).toContain(`/webhooks/telnyx/calls/dial?callId=${accepted.body.id}`);

    // TeXML callbacks are Twilio-compatible forms, signed by Telnyx with Ed25519.
    const leg = {
      AccountSid: "f5586561-8ff0-4291-a51b-c7dfe4139ff9",
      CallSid: queued.providerId,
      Direction: "outbound-api",
      From: ours.phoneNumber,
      To: agent,
    };
    const form = (fields: Record<string, string>) => new URLSearchParams({ ...leg, ...fields }).toString();
    expect(
      (await postTelnyxWebhook(body.StatusCallback!, form({ CallStatus: "ringing", SequenceNumber: "1" }))).status,
    ).toBe(200);
    expect(
      (await postTelnyxWebhook(body.StatusCallback!, form({ CallStatus: "in-progress", SequenceNumber: "2" }))).status,
    ).toBe(200);
    const dial = form({
      CallStatus: "in-progress",
      DialCallStatus: "completed",
      DialCallDuration: "64",
      DialCallSid: "v3:lead-leg",
    });
    expect((await postTelnyxWebhook(dialAction, dial)).status).toBe(200);
    expect(
      (
        await postTelnyxWebhook(
          body.StatusCallback!,
          form({ CallStatus: "completed", CallDuration: "80", SequenceNumber: "3" }),
        )
      ).status,
    ).toBe(200);
    // A replayed Dial result charges nothing more.
    expect((await postTelnyxWebhook(dialAction, dial)).status).toBe(200);

    const call = await waitForCall(org, accepted.body.id);
    expect(call).toMatchObject({
      status: "Completed",
      duration: 64,
      billableSeconds: 120,
      billingStatus: "Charged",
      provider: "telnyx",
    });
    expect((await allLedgerEntries(org)).filter((entry) => entry.callId === call.id)).toEqual([
      expect.objectContaining({ entryType: "Charge", reason: "CallMinutes", quantity: 120 }),
    ]);
    expect((await postTelnyxWebhook(dialAction, dial, { signature: "forged" })).status).toBe(403);
  });
});

describe("Telnyx lookups: the sweeps ask Telnyx when callbacks never came", () => {
  const HOUR = 3_600_000;

  it("a message whose receipts were lost is looked up (GET /v2/messages/{id}) and ends as Telnyx says, charged once", async () => {
    const { org } = await telnyxOrganization();
    const to = randomNumber("312");
    const accepted = await send(org, { to, body: "Receipt will be lost" });
    const sent = await waitForMessage(
      org,
      accepted.body.id,
      (message) => message.status === "Sending" && message.providerMessageId,
    );
    await setTelnyxRecord("messages", sent.providerMessageId, { status: "delivered" });
    const sweep = () =>
      sweepDueMessages({ now: new Date(Date.now() + 1.1 * HOUR), organizationId: org.organizationId });
    expect(await sweep()).toMatchObject({ reconciled: 1, expired: 0 });
    expect(await waitForMessage(org, accepted.body.id)).toMatchObject({
      status: "Delivered",
      providerStatus: "delivered",
      billingStatus: "Charged",
    });
    expect(await sweep()).toMatchObject({ reconciled: 0, expired: 0 });
    expect(
      (await allLedgerEntries(org)).filter(
        (entry) => entry.messageId === accepted.body.id && entry.entryType === "Charge",
      ),
    ).toHaveLength(1);
    const lookups = (await carrierRequests(sent.providerMessageId)).filter((request) => request.method === "GET");
    expect(lookups.map(({ path, authorization, answered }) => ({ path, authorization, answered }))).toEqual([
      { path: `/v2/messages/${sent.providerMessageId}`, authorization: TELNYX_BEARER, answered: 200 },
    ]);
  });

  it("a call whose callbacks were lost is looked up (GET /v2/texml/Accounts/{sid}/Calls/{call_sid}): completed 42 s is charged once", async () => {
    const { org } = await telnyxOrganization();
    const lead = randomNumber("312");
    const accepted = await org.request("POST", "/calls", { body: { to: lead } });
    const placed = await waitForCall(org, accepted.body.id, (call) => Boolean(call.providerId));
    await setTelnyxRecord("calls", placed.providerId, { status: "completed", duration: 42 });
    const deadline = Date.parse(((await readCall(org.organizationId, placed.id))!.gsi3sk as string).split("#")[0]!);
    const sweep = (at: number) => sweepDueCalls({ now: new Date(at), organizationId: org.organizationId });
    expect(await sweep(deadline - 1_000)).toEqual({ reported: 0, expired: 0, checked: 0, errors: 0 });
    expect(await sweep(deadline + 1_000)).toEqual({ reported: 1, expired: 0, checked: 0, errors: 0 });
    const call = await waitForCall(org, placed.id);
    expect(call).toMatchObject({
      status: "Completed",
      providerStatus: "completed",
      duration: 42,
      billableSeconds: 60,
      billingStatus: "Charged",
    });
    expect(await sweep(deadline + 60_000)).toEqual({ reported: 0, expired: 0, checked: 0, errors: 0 });
    expect(
      (await allLedgerEntries(org)).filter((entry) => entry.callId === call.id && entry.entryType === "Charge"),
    ).toEqual([expect.objectContaining({ reason: "CallMinutes", quantity: 60 })]);
    const lookups = (await carrierRequests(encodeURIComponent(placed.providerId))).filter(
      (request) => request.method === "GET",
    );
    expect(lookups.map(({ path, authorization }) => ({ path, authorization }))).toEqual([
      {
        path: `/v2/texml/Accounts/f5586561-8ff0-4291-a51b-c7dfe4139ff9/Calls/${encodeURIComponent(placed.providerId)}`,
        authorization: TELNYX_BEARER,
      },
    ]);
  });

  it("a call Telnyx reports without a final status ends Failed at the sweep, nothing charged", async () => {
    const { org } = await telnyxOrganization();
    const accepted = await org.request("POST", "/calls", { body: { to: randomNumber("312") } });
    const placed = await waitForCall(org, accepted.body.id, (call) => Boolean(call.providerId));
    await setTelnyxRecord("calls", placed.providerId, { status: "queued" });
    // The call's deadline (its first due time is only a check-in).
    const deadline = Date.parse((await readCall(org.organizationId, placed.id))!.deadlineAt!);
    expect(await sweepDueCalls({ now: new Date(deadline + 1_000), organizationId: org.organizationId })).toEqual({
      reported: 0,
      expired: 1,
      checked: 0,
      errors: 0,
    });
    expect(await waitForCall(org, placed.id)).toMatchObject({
      status: "Failed",
      providerStatus: "queued",
      billingStatus: "Released",
    });
  });
});
