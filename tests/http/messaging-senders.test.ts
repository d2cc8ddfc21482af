import { describe, expect, it } from "vitest";
import { addNumber, createLead, events, randomNumber, send, textFrom, waitForMessage } from "#tests/helpers/messaging";
import { newOrganization } from "#tests/helpers/stack";

const delivered = (message: any) => message.status === "Delivered";

describe("phone numbers", () => {
  it("creates, reads, lists and deletes a number (endpoint 12: 204 without a body, then 404)", async () => {
    const org = await newOrganization();
    const phoneNumber = randomNumber("305");
    const created = await org.request("POST", "/phone-numbers", {
      body: {
        phoneNumber: `(${phoneNumber.slice(2, 5)}) ${phoneNumber.slice(5, 8)}-${phoneNumber.slice(8)}`,
        friendlyName: "Miami",
        capabilities: ["sms"],
      },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      phoneNumber,
      friendlyName: "Miami",
      capabilities: ["sms"],
      areaCode: "305",
      lastUsedAt: null,
    });
    expect((await org.request("GET", `/phone-numbers/${created.body.id}`)).body).toEqual(created.body);
    const page = await org.request("POST", "/phone-numbers/all/my", { body: {} });
    expect(page.body.items).toEqual([created.body]);

    const deleted = await org.request("DELETE", `/phone-numbers/${created.body.id}`);
    expect(deleted.status).toBe(204);
    expect(deleted.body).toBe("");
    expect((await org.request("DELETE", `/phone-numbers/${created.body.id}`)).status).toBe(404);
    expect((await org.request("GET", `/phone-numbers/${created.body.id}`)).status).toBe(404);
    expect(await events(org, { eventCategory: "PhoneNumber" })).toHaveLength(2);
  });

  it("answers 401 without credentials, 403 for a member, 404 for another tenant's number, 409 for a number already taken", async () => {
    const org = await newOrganization();
    const other = await newOrganization();
    const number = await addNumber(org);
    expect((await org.request("DELETE", `/phone-numbers/${number.id}`, { token: null })).status).toBe(401);
    expect((await org.request("DELETE", `/phone-numbers/${number.id}`, { token: org.memberToken })).status).toBe(403);
    expect((await other.request("DELETE", `/phone-numbers/${number.id}`)).status).toBe(404);
    expect((await other.request("GET", `/phone-numbers/${number.id}`)).status).toBe(404);
    expect((await other.request("POST", "/phone-numbers", { body: { phoneNumber: number.phoneNumber } })).status).toBe(
      409,
    );
    const invalid = await org.request("POST", "/phone-numbers", {
      body: { phoneNumber: "555", capabilities: ["fax"] },
    });
    expect(invalid.status).toBe(400);
    expect(invalid.body.errors.map((error: { pointer: string }) => error.pointer).sort()).toEqual([
      "/capabilities/0",
      "/phoneNumber",
    ]);
  });
});

describe("sender selection", () => {
  it("prefers the recipient's area code, then keeps the conversation sticky to the number it used", async () => {
    const org = await newOrganization();
    const chicago = await addNumber(org, "312");
    const newYork = await addNumber(org, "212");
    const to = randomNumber("212");
    const first = await waitForMessage(org, (await send(org, { to, body: "one" })).body.id, delivered);
    expect(first).toMatchObject({ fromPhoneNumberId: newYork.id, selectionReason: "AreaCodeMatch" });
    const second = await waitForMessage(org, (await send(org, { to, body: "two" })).body.id, delivered);
    expect(second).toMatchObject({ fromPhoneNumberId: newYork.id, selectionReason: "StickyConversation" });
    const conversation = (await org.request("GET", `/conversations/${second.conversationId}`)).body;
    expect(conversation).toMatchObject({
      phoneNumberId: newYork.id,
      phoneNumber: newYork.phoneNumber,
      contactPhoneNumber: to,
    });

    const other = await waitForMessage(
      org,
      (await send(org, { to: randomNumber("415"), body: "la" })).body.id,
      delivered,
    );
    expect(other.selectionReason).toBe("LeastRecentlyUsed");
    expect(other.fromPhoneNumberId).toBe(chicago.id);
  });

  it("uses a manual sender override (wasManuallyOverridden) and 400s an unknown one", async () => {
    const org = await newOrganization();
    await addNumber(org, "212");
    const chosen = await addNumber(org, "312");
    const message = await waitForMessage(
      org,
      (await send(org, { to: randomNumber("212"), body: "x", fromPhoneNumberId: chosen.id })).body.id,
      delivered,
    );
    expect(message).toMatchObject({
      fromPhoneNumberId: chosen.id,
      wasManuallyOverridden: true,
      selectionReason: "ManualOverride",
    });
    const [sending] = await events(org, { eventType: "MessageSending" });
    expect(sending).toMatchObject({
      wasManuallyOverridden: true,
      outboundPhoneNumberId: chosen.id,
      selectionReason: "ManualOverride",
    });
    const unknown = await send(org, {
      to: randomNumber("212"),
      body: "x",
      fromPhoneNumberId: "01JNOSUCHNUMBER00000000000",
    });
    expect(unknown.status).toBe(400);
    expect(unknown.body.errors[0].pointer).toBe("/fromPhoneNumberId");
  });

  it("moves a conversation sticky to a deleted number to another number on its next message, and says so", async () => {
    const org = await newOrganization();
    const first = await addNumber(org, "212");
    const to = randomNumber("212");
    const before = await waitForMessage(org, (await send(org, { to, body: "one" })).body.id, delivered);
    expect(before.fromPhoneNumberId).toBe(first.id);
    const replacement = await addNumber(org, "212");
    expect((await org.request("DELETE", `/phone-numbers/${first.id}`)).status).toBe(204);
    const after = await waitForMessage(org, (await send(org, { to, body: "two" })).body.id, delivered);
    expect(after).toMatchObject({ fromPhoneNumberId: replacement.id, selectionReason: "AreaCodeMatch" });
    const [moved] = await events(org, { eventType: "ConversationSenderMoved" });
    expect(moved).toMatchObject({
      conversationId: after.conversationId,
      fromPhoneNumberId: replacement.id,
      statusReason: `PreviousNumberDeleted:${first.id}`,
    });
    expect((await org.request("GET", `/conversations/${after.conversationId}`)).body.phoneNumberId).toBe(
      replacement.id,
    );
  });

  it("reassigns a conversation's sender (PUT /conversations/{id}/sender) and records the event", async () => {
    const org = await newOrganization();
    await addNumber(org, "212");
    const other = await addNumber(org, "312");
    const first = await waitForMessage(
      org,
      (await send(org, { to: randomNumber("212"), body: "one" })).body.id,
      delivered,
    );
    const reassigned = await org.request("PUT", `/conversations/${first.conversationId}/sender`, {
      body: { phoneNumberId: other.id },
    });
    expect(reassigned.status).toBe(200);
    expect(reassigned.body.phoneNumberId).toBe(other.id);
    const [event] = await events(org, { eventType: "ConversationSenderReassigned" });
    expect(event).toMatchObject({
      conversationId: first.conversationId,
      fromPhoneNumberId: other.id,
      actorUserId: org.userIds.owner,
    });
    const next = await waitForMessage(
      org,
      (await send(org, { to: first.toPhoneNumber, body: "two" })).body.id,
      delivered,
    );
    expect(next).toMatchObject({ fromPhoneNumberId: other.id, selectionReason: "StickyConversation" });
    expect(
      (await org.request("PUT", `/conversations/${first.conversationId}/sender`, { body: { phoneNumberId: "nope" } }))
        .status,
    ).toBe(404);
  });

  it("fails a message when the organization has no number that can send it", async () => {
    const org = await newOrganization();
    await addNumber(org, "212", ["voice"]);
    const failed = await waitForMessage(org, (await send(org, { to: randomNumber(), body: "x" })).body.id);
    expect(failed).toMatchObject({ status: "Failed", errorCode: "NoSenderNumber" });
  });
});

describe("POST /messages validation", () => {
  it("answers 400 with pointers for a missing recipient, both recipients, no content and bad media", async () => {
    const org = await newOrganization();
    const none = await send(org, { body: "x" });
    expect(none.status).toBe(400);
    expect(none.body.errors[0].pointer).toBe("/to");
    expect((await send(org, { to: randomNumber(), leadId: "x", body: "x" })).status).toBe(400);
    const empty = await send(org, { to: randomNumber() });
    expect(empty.body.errors[0].pointer).toBe("/body");
    const media = await send(org, { to: randomNumber(), media: [{ url: "ftp://x", contentType: "image" }] });
    expect(media.body.errors.map((error: { pointer: string }) => error.pointer).sort()).toEqual([
      "/media/0/contentType",
      "/media/0/url",
    ]);
    const lead = await send(org, { leadId: "01JNOSUCHLEAD0000000000000", body: "x" });
    expect(lead.status).toBe(400);
    expect(lead.body.errors[0].pointer).toBe("/leadId");
    expect((await send(org, { to: "12", body: "x" })).body.errors[0].pointer).toBe("/to");
  });

  it("replays a repeated Idempotency-Key instead of sending twice", async () => {
    const org = await newOrganization();
    await addNumber(org);
    const body = { to: randomNumber(), body: "once" };
    const headers = { "idempotency-key": `key-${Date.now()}` };
    const first = await org.request("POST", "/messages", { body, headers });
    const second = await org.request("POST", "/messages", { body, headers });
    expect(second.status).toBe(202);
    expect(second.body.id).toBe(first.body.id);
    expect(second.headers.get("idempotent-replayed")).toBe("true");
  });
});

describe("tenant isolation", () => {
  it("never shows one organization's messages, conversations, suppressions or events to another", async () => {
    const org = await newOrganization();
    const other = await newOrganization();
    const number = await addNumber(org);
    const phone = randomNumber();
    await createLead(org, phone);
    const message = await waitForMessage(org, (await send(org, { to: phone, body: "private" })).body.id, delivered);
    await textFrom(phone, number.phoneNumber, "hello back");
    await org.request("POST", "/suppressions", { body: { phoneNumber: randomNumber() } });

    expect((await other.request("GET", `/messages/${message.id}`)).status).toBe(404);
    expect((await other.request("POST", `/messages/${message.id}/cancel`)).status).toBe(404);
    expect((await other.request("GET", `/conversations/${message.conversationId}`)).status).toBe(404);
    expect((await other.request("POST", `/conversations/${message.conversationId}/read`)).status).toBe(404);
    expect((await other.request("POST", "/conversations/all/my", { body: {} })).body.items).toEqual([]);
    expect((await other.request("POST", "/suppressions/all/my", { body: {} })).body.items).toEqual([]);
    expect((await other.request("POST", "/phone-numbers/all/my", { body: {} })).body.items).toEqual([]);
    expect(await events(other)).toEqual([]);
    expect(await events(other, { conversationId: message.conversationId })).toEqual([]);
  });
});
