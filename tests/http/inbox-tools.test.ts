import { describe, expect, it } from "vitest";
import { addNumber, randomNumber, textFrom } from "#tests/helpers/messaging";
import { newOrganization, type TestOrganization } from "#tests/helpers/stack";

async function conversationWith(org: TestOrganization, phone: string): Promise<string> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const listed = await org.request("POST", "/conversations/all/my", {
      body: { filters: [{ field: "contactPhoneNumber", value: phone }] },
    });
    if (listed.body.items[0]) return listed.body.items[0].id;
    if (Date.now() > deadline) throw new Error(`no conversation with ${phone}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe("canned replies", () => {
  it("are saved per organization, listed newest first, searched by name, and deleted", async () => {
    const org = await newOrganization();
    const other = await newOrganization();
    const first = await org.request("POST", "/canned-replies", {
      body: { name: "Quote follow-up", body: "Did you get a chance to look at the quote?" },
      token: org.agentToken,
    });
    expect(first.status, JSON.stringify(first.body)).toBe(201);
    expect(first.body).toMatchObject({ name: "Quote follow-up", createdByUserId: org.userIds.agent });
    const second = await org.request("POST", "/canned-replies", {
      body: { name: "Call me", body: "  When is a good time to call?  " },
    });
    expect(second.body.body).toBe("When is a good time to call?");

    const listed = await org.request("POST", "/canned-replies/all/my", { body: {} });
    expect(listed.status).toBe(200);
    expect(listed.body.items.map((reply: { id: string }) => reply.id)).toEqual([second.body.id, first.body.id]);
    const found = await org.request("POST", "/canned-replies/all/my", { body: { search: "quote" } });
    expect(found.body.items.map((reply: { id: string }) => reply.id)).toEqual([first.body.id]);

    // Another organization neither sees nor deletes them.
    expect((await other.request("POST", "/canned-replies/all/my", { body: {} })).body.items).toEqual([]);
    expect((await other.request("DELETE", `/canned-replies/${first.body.id}`)).status).toBe(404);

    expect((await org.request("DELETE", `/canned-replies/${first.body.id}`, { token: org.agentToken })).status).toBe(
      204,
    );
    expect((await org.request("DELETE", `/canned-replies/${first.body.id}`)).status).toBe(404);
    const left = await org.request("POST", "/canned-replies/all/my", { body: {} });
    expect(left.body.items.map((reply: { id: string }) => reply.id)).toEqual([second.body.id]);
  });

  it("refuse an empty or over-long reply with the field named", async () => {
    const org = await newOrganization();
    const empty = await org.request("POST", "/canned-replies", { body: { name: "Empty", body: "   " } });
    expect(empty.status).toBe(400);
    expect(empty.body.errors).toEqual([expect.objectContaining({ pointer: "/body" })]);
    const long = await org.request("POST", "/canned-replies", { body: { name: "x".repeat(81), body: "Hi" } });
    expect(long.status).toBe(400);
    expect(long.body.errors).toEqual([expect.objectContaining({ pointer: "/name" })]);
  });
});

describe("internal notes", () => {
  it("are stored on the conversation's timeline with their author, never sent, and refused for an unknown conversation", async () => {
    const org = await newOrganization();
    const other = await newOrganization();
    const number = await addNumber(org);
    const phone = randomNumber();
    await textFrom(phone, number.phoneNumber, "hello?");
    const conversationId = await conversationWith(org, phone);

    const note = await org.request("POST", `/conversations/${conversationId}/notes`, {
      body: { body: "Prefers a call after 5 pm." },
      token: org.agentToken,
    });
    expect(note.status, JSON.stringify(note.body)).toBe(201);
    expect(note.body).toMatchObject({
      conversationId,
      body: "Prefers a call after 5 pm.",
      authorUserId: org.userIds.agent,
      authorName: "Test agent",
    });

    const events = await org.request("POST", "/events/all/my", {
      body: { filters: [{ field: "conversationId", value: conversationId }], pageSize: 100 },
    });
    const notes = events.body.items.filter(
      (event: { eventType: string }) => event.eventType === "ConversationNoteAdded",
    );
    expect(notes).toEqual([
      expect.objectContaining({
        id: note.body.id,
        summary: "Prefers a call after 5 pm.",
        actorUserId: org.userIds.agent,
        eventCategory: "Conversation",
      }),
    ]);
    // Never sent: the conversation still holds only the contact's text.
    const conversation = await org.request("GET", `/conversations/${conversationId}`);
    expect(conversation.body).toMatchObject({ lastMessagePreview: "hello?", lastDirection: "Inbound" });

    expect(
      (await other.request("POST", `/conversations/${conversationId}/notes`, { body: { body: "hi" } })).status,
    ).toBe(404);
    const empty = await org.request("POST", `/conversations/${conversationId}/notes`, { body: { body: "" } });
    expect(empty.status).toBe(400);
    expect(empty.body.errors).toEqual([expect.objectContaining({ pointer: "/body" })]);
  });
});
