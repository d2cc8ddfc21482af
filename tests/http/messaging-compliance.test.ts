import { describe, expect, it } from "vitest";
import {
  addNumber,
  createLead,
  events,
  magic,
  randomNumber,
  send,
  textFrom,
  waitForMessage,
} from "#tests/helpers/messaging";
import { newOrganization, type TestOrganization } from "#tests/helpers/stack";

async function outboundTo(org: TestOrganization, phone: string) {
  const messages = (await events(org, { eventType: "MessageAccepted" })).filter(
    (event) => event.toPhoneNumber === phone,
  );
  return Promise.all(messages.map((event) => waitForMessage(org, event.relatedEntityId)));
}

describe("inbound compliance keywords", () => {
  it("STOP opts the lead out, suppresses the number, confirms once, and blocks later sends before the provider", async () => {
    const org = await newOrganization();
    const number = await addNumber(org);
    const phone = randomNumber();
    const lead = await createLead(org, phone);
    expect((await textFrom(phone, number.phoneNumber, "  stop ")).status).toBe(200);
    expect((await textFrom(phone, number.phoneNumber, "STOPALL")).status).toBe(200);

    const stored = (await org.request("GET", `/leads/${lead.id}`)).body;
    expect(stored.metadata).toMatchObject({ smsOptedOut: true, smsConsentStatus: "OptedOut" });
    expect(stored.metadata.smsOptOutAt).toBeTruthy();
    const suppressions = (await org.request("POST", "/suppressions/all/my", { body: {} })).body.items;
    expect(suppressions).toMatchObject([{ phoneNumber: phone, reason: "OptOutKeyword", leadId: lead.id }]);
    const confirmations = await outboundTo(org, phone);
    expect(confirmations).toHaveLength(1);
    expect(confirmations[0]).toMatchObject({
      status: "Delivered",
      purpose: "OptOutConfirmation",
      fromPhoneNumberId: number.id,
    });

    const blocked = await waitForMessage(org, (await send(org, { leadId: lead.id, body: "Still there?" })).body.id);
    expect(blocked).toMatchObject({ status: "Blocked", complianceAction: "OptedOut" });
    expect(blocked.blockedAt).toBeTruthy();
    expect(blocked.statusReason).toBeTruthy();
    // Never handed to the provider: no claim, no provider id.
    expect(blocked.sendingStartedAt ?? null).toBeNull();
    expect(blocked.providerMessageId ?? null).toBeNull();
    expect(
      (await events(org, { eventType: "MessageSending" })).filter((event) => event.relatedEntityId === blocked.id),
    ).toHaveLength(0);
    expect(await events(org, { eventType: "ContactOptedOut" })).toHaveLength(2);
  });

  it("START opts back in: suppression removed, smsOptInAt set, confirmation sent, sends deliver again", async () => {
    const org = await newOrganization();
    const number = await addNumber(org);
    const phone = randomNumber();
    const lead = await createLead(org, phone);
    await textFrom(phone, number.phoneNumber, "UNSUBSCRIBE");
    await textFrom(phone, number.phoneNumber, "Start");
    const stored = (await org.request("GET", `/leads/${lead.id}`)).body;
    expect(stored.metadata).toMatchObject({ smsOptedOut: false, smsConsentStatus: "OptedIn" });
    expect(stored.metadata.smsOptInAt).toBeTruthy();
    expect((await org.request("POST", "/suppressions/all/my", { body: {} })).body.items).toEqual([]);
    const replies = await outboundTo(org, phone);
    expect(replies.map((message) => message.purpose).sort()).toEqual(["OptInConfirmation", "OptOutConfirmation"]);
    const sent = await waitForMessage(org, (await send(org, { leadId: lead.id, body: "Welcome back" })).body.id);
    expect(sent.status).toBe("Delivered");
  });

  it("HELP records smsHelpRequestedAt and replies with the organization's help text", async () => {
    const org = await newOrganization();
    const number = await addNumber(org);
    const phone = randomNumber();
    const lead = await createLead(org, phone);
    const settings = await org.request("PUT", "/messaging/settings", {
      body: { helpText: "Acme Insurance: call 212-555-0100. Reply STOP to opt out." },
    });
    expect(settings.status).toBe(200);
    await textFrom(phone, number.phoneNumber, "help");
    expect((await org.request("GET", `/leads/${lead.id}`)).body.metadata.smsHelpRequestedAt).toBeTruthy();
    const [reply] = await outboundTo(org, phone);
    expect(reply).toMatchObject({
      purpose: "HelpReply",
      body: "Acme Insurance: call 212-555-0100. Reply STOP to opt out.",
      status: "Delivered",
    });
    expect(await events(org, { eventType: "ContactHelpRequested" })).toHaveLength(1);
  });

  it("stores an ordinary inbound message once, marks the conversation unread, and read clears it", async () => {
    const org = await newOrganization();
    const number = await addNumber(org);
    const phone = randomNumber();
    const lead = await createLead(org, phone);
    const first = await textFrom(phone, number.phoneNumber, "Is the quote still valid?");
    await textFrom(phone, number.phoneNumber, "Is the quote still valid?", first.providerMessageId); // provider retry
    const unread = (
      await org.request("POST", "/conversations/all/my", { body: { filters: [{ field: "unread", value: true }] } })
    ).body.items;
    expect(unread).toHaveLength(1);
    expect(unread[0]).toMatchObject({
      contactPhoneNumber: phone,
      leadId: lead.id,
      unread: true,
      unreadCount: 1,
      phoneNumberId: number.id,
      lastDirection: "Inbound",
    });
    const received = await events(org, { eventType: "MessageReceived", conversationId: unread[0].id });
    expect(received).toHaveLength(1);
    expect(received[0]).toMatchObject({
      direction: "Inbound",
      status: "Received",
      fromPhoneNumber: phone,
      toPhoneNumber: number.phoneNumber,
      leadId: lead.id,
    });
    const read = await org.request("POST", `/conversations/${unread[0].id}/read`);
    expect(read.body).toMatchObject({ unread: false, unreadCount: 0 });
    expect(
      (await org.request("POST", "/conversations/all/my", { body: { filters: [{ field: "unread", value: true }] } }))
        .body.items,
    ).toEqual([]);

    // The inbox comes from its sparse index (gsi7): unread only, latest message first, and a read one leaves it.
    const [second, third] = [randomNumber(), randomNumber()];
    await textFrom(second, number.phoneNumber, "Second");
    await textFrom(third, number.phoneNumber, "Third");
    await textFrom(phone, number.phoneNumber, "Back again");
    const inbox = async () =>
      (
        await org.request("POST", "/conversations/all/my", {
          body: {
            filters: [{ field: "unread", value: true }],
            orderBy: [{ field: "lastMessageAt", direction: "desc" }],
            includeCount: true,
          },
        })
      ).body;
    const before = await inbox();
    expect(before.items.map((conversation: { contactPhoneNumber: string }) => conversation.contactPhoneNumber)).toEqual(
      [phone, third, second],
    );
    expect(before).toMatchObject({ totalCount: 3, totalCountCapped: false });
    await org.request("POST", `/conversations/${before.items[1].id}/read`);
    expect(
      (await inbox()).items.map((conversation: { contactPhoneNumber: string }) => conversation.contactPhoneNumber),
    ).toEqual([phone, second]);
  });

  it("ignores an inbound message to a number no organization owns (200, nothing stored)", async () => {
    expect((await textFrom(randomNumber(), randomNumber("646"), "hello?")).status).toBe(200);
  });
});

describe("suppression list", () => {
  it("blocks a manually suppressed number and lists, removes (URL-encoded +) and 404s unknown entries", async () => {
    const org = await newOrganization();
    await addNumber(org);
    const phone = randomNumber();
    const added = await org.request("POST", "/suppressions", {
      body: { phoneNumber: phone.slice(2), note: "asked by phone" },
    });
    expect(added.status).toBe(201);
    expect(added.body).toMatchObject({ phoneNumber: phone, reason: "Manual", note: "asked by phone" });
    expect((await org.request("POST", "/suppressions", { body: { phoneNumber: phone } })).body.note).toBe(
      "asked by phone",
    );
    const blocked = await waitForMessage(org, (await send(org, { to: phone, body: "hi" })).body.id);
    expect(blocked).toMatchObject({ status: "Blocked", complianceAction: "Suppressed" });

    expect((await org.request("DELETE", `/suppressions/${encodeURIComponent(phone)}`)).status).toBe(204);
    expect((await org.request("DELETE", `/suppressions/${encodeURIComponent(phone)}`)).status).toBe(404);
    const malformed = await org.request("DELETE", "/suppressions/12345");
    expect(malformed.status).toBe(400);
    expect(malformed.body.errors[0].pointer).toBe("/path/phone");
    expect(
      (await org.request("POST", "/suppressions", { body: { phoneNumber: "not a phone" } })).body.errors[0].pointer,
    ).toBe("/phoneNumber");
    const delivered = await waitForMessage(org, (await send(org, { to: phone, body: "hi again" })).body.id);
    expect(delivered.status).toBe("Delivered");
  });

  it("adds a number the carrier reports as opted out (21610) and blocks the next send", async () => {
    const org = await newOrganization();
    await addNumber(org);
    const phone = magic("06");
    const refused = await waitForMessage(org, (await send(org, { to: phone, body: "hi" })).body.id);
    expect(refused).toMatchObject({ status: "Failed", errorCode: "21610", complianceAction: "ProviderOptOut" });
    expect((await org.request("POST", "/suppressions/all/my", { body: {} })).body.items).toMatchObject([
      { phoneNumber: phone, reason: "ProviderOptOut" },
    ]);
    const blocked = await waitForMessage(org, (await send(org, { to: phone, body: "again" })).body.id);
    expect(blocked).toMatchObject({ status: "Blocked", complianceAction: "Suppressed" });
  });

  it("needs suppression permissions: 401 without credentials", async () => {
    const org = await newOrganization();
    expect((await org.request("POST", "/suppressions/all/my", { body: {}, token: null })).status).toBe(401);
  });
});
