import { afterAll, describe, expect, it } from "vitest";
import { addNumber, randomNumber, textFrom } from "#tests/helpers/messaging";
import { newOrganization, waitForResource, type TestOrganization } from "#tests/helpers/stack";
import { payloadsOf, subscribeToEvents, type EventStream } from "#tests/helpers/webhooks";

const streams: EventStream[] = [];
afterAll(async () => void (await Promise.all(streams.map((stream) => stream.close()))));

async function lead(org: TestOrganization, firstName: string, lastName: string, phone = randomNumber()) {
  const response = await org.request("POST", "/leads", {
    body: { contact: { firstName, lastName, phone: { number: phone } } },
  });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return { id: response.body.id as string, phone };
}

/** The lead texts our number: its conversation starts (unread) and is answered once it is listed. */
async function conversationOf(org: TestOrganization, phone: string, ourNumber: string, text = "hi there") {
  await textFrom(phone, ourNumber, text);
  const found = await waitForResource(
    org,
    `/conversations/${await conversationIdOf(org, phone)}`,
    (conversation) => conversation.unreadCount > 0,
    15_000,
    `conversation of ${phone}`,
  );
  return found;
}

async function conversationIdOf(org: TestOrganization, phone: string): Promise<string> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const listed = await org.request("POST", "/conversations/all/my", {
      body: { filters: [{ field: "contactPhoneNumber", value: phone }] },
    });
    expect(listed.status).toBe(200);
    if (listed.body.items[0]) return listed.body.items[0].id;
    if (Date.now() > deadline) throw new Error(`no conversation with ${phone}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function listed(org: TestOrganization, body: Record<string, unknown>, token?: string): Promise<string[]> {
  const response = await org.request("POST", "/conversations/all/my", { body, ...(token ? { token } : {}) });
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body.items.map((conversation: { id: string }) => conversation.id).sort();
}

async function assign(org: TestOrganization, conversationId: string, userId: string | null, token?: string) {
  return org.request("PUT", `/conversations/${conversationId}/assignee`, {
    body: { userId },
    ...(token ? { token } : {}),
  });
}

describe("conversation assignment", () => {
  it("a conversation starts with its lead's name and assignee, follows the lead's reassignment, and is recorded as conversation.assigned", async () => {
    const org = await newOrganization();
    const webhooks = await subscribeToEvents(org, ["conversation.assigned", "conversation.unassigned"]);
    streams.push(webhooks);
    const number = await addNumber(org);
    const ada = await lead(org, "Ada", "Lovelace");
    expect(
      (await org.request("PUT", `/leads/${ada.id}/assignee`, { body: { userId: org.userIds.agent } })).status,
    ).toBe(200);

    const conversation = await conversationOf(org, ada.phone, number.phoneNumber);
    expect(conversation).toMatchObject({
      leadId: ada.id,
      leadName: "Ada Lovelace",
      assignedUserId: org.userIds.agent,
      assignedBy: { method: "lead", userId: null },
    });
    expect(conversation.assignedAt).toEqual(expect.any(String));

    // The lead moves to the admin: the conversation follows, through the lead's event on the table's stream.
    expect(
      (await org.request("PUT", `/leads/${ada.id}/assignee`, { body: { userId: org.userIds.admin } })).status,
    ).toBe(200);
    const followed = await waitForResource(
      org,
      `/conversations/${conversation.id}`,
      (current) => current.assignedUserId === org.userIds.admin,
      20_000,
      "the conversation following its lead",
    );
    expect(followed.assignedBy).toEqual({ method: "lead", userId: null });

    // Unassigning the lead unassigns the conversation.
    expect((await org.request("PUT", `/leads/${ada.id}/assignee`, { body: { userId: null } })).status).toBe(200);
    await waitForResource(
      org,
      `/conversations/${conversation.id}`,
      (current) => current.assignedUserId === null && current.assignedBy === null && current.assignedAt === null,
      20_000,
      "the conversation unassigned with its lead",
    );

    const events = await org.request("POST", "/events/all/my", {
      body: { filters: [{ field: "conversationId", value: conversation.id }], pageSize: 100 },
    });
    const assignments = events.body.items.filter((event: { eventType: string }) =>
      event.eventType.startsWith("Conversation"),
    );
    expect(assignments.map((event: { eventType: string }) => event.eventType).sort()).toEqual([
      "ConversationAssigned",
      "ConversationUnassigned",
    ]);
    expect(
      assignments.find((event: { eventType: string }) => event.eventType === "ConversationAssigned"),
    ).toMatchObject({
      eventCategory: "Conversation",
      relatedEntityType: "Conversation",
      relatedEntityId: conversation.id,
      leadId: ada.id,
      description: "Conversation with Ada Lovelace assigned to Test admin (follows its lead).",
    });

    const delivered = await webhooks.awaitEvents(
      (all) =>
        payloadsOf(all, "conversation.assigned").length === 1 &&
        payloadsOf(all, "conversation.unassigned").length === 1,
    );
    const payload = payloadsOf(delivered, "conversation.assigned")[0]!;
    expect(payload.data).toMatchObject({ id: conversation.id, leadName: "Ada Lovelace" });
    expect(payload.event).toMatchObject({ eventType: "ConversationAssigned", relatedEntityId: conversation.id });
    // Texts, two stream hops and webhook deliveries on a shared machine: more than the default minute.
  }, 180_000);

  it("assigns, reassigns and unassigns by API under the lead assignee's rules, and a newer lead change wins again", async () => {
    const org = await newOrganization();
    const other = await newOrganization();
    const number = await addNumber(org);
    const grace = await lead(org, "Grace", "Hopper");
    const conversation = await conversationOf(org, grace.phone, number.phoneNumber);
    expect(conversation).toMatchObject({ assignedUserId: null, assignedBy: null, leadName: "Grace Hopper" });

    const assigned = await assign(org, conversation.id, org.userIds.agent);
    expect(assigned.status, JSON.stringify(assigned.body)).toBe(200);
    expect(assigned.body).toMatchObject({
      assignedUserId: org.userIds.agent,
      assignedBy: { method: "manual", userId: org.userIds.owner },
    });
    const reassigned = await assign(org, conversation.id, org.userIds.admin, org.adminToken);
    expect(reassigned.body).toMatchObject({ assignedUserId: org.userIds.admin });
    expect((await assign(org, conversation.id, null)).body).toMatchObject({ assignedUserId: null, assignedBy: null });

    // Not a user of this organization: 400 at the field. Another organization's conversation: 404.
    const unknown = await assign(org, conversation.id, "nobody");
    expect(unknown.status).toBe(400);
    expect(unknown.body.errors).toEqual([expect.objectContaining({ pointer: "/userId" })]);
    expect((await assign(other, conversation.id, other.userIds.owner)).status).toBe(404);

    // Agents claim only where the organization allows it, only for themselves, only what nobody holds.
    expect((await assign(org, conversation.id, org.userIds.agent, org.agentToken)).status).toBe(403);
    expect((await org.request("PUT", "/routing/settings", { body: { agentsMayClaim: true } })).status).toBe(200);
    expect((await assign(org, conversation.id, org.userIds.admin, org.agentToken)).status).toBe(403);
    const claimed = await assign(org, conversation.id, org.userIds.agent, org.agentToken);
    expect(claimed.status, JSON.stringify(claimed.body)).toBe(200);
    expect(claimed.body.assignedBy).toEqual({ method: "claim", userId: org.userIds.agent });
    await assign(org, conversation.id, org.userIds.admin);
    expect((await assign(org, conversation.id, org.userIds.agent, org.agentToken)).status).toBe(409);

    // The lead is assigned after the manual change: the conversation follows the newer change.
    expect(
      (await org.request("PUT", `/leads/${grace.id}/assignee`, { body: { userId: org.userIds.owner } })).status,
    ).toBe(200);
    await waitForResource(
      org,
      `/conversations/${conversation.id}`,
      (current) => current.assignedUserId === org.userIds.owner,
      20_000,
      "the conversation following the newer lead assignment",
    );
  }, 120_000);

  it("two assignments at once: one is written, the other is a 409, and the events say exactly what happened", async () => {
    const org = await newOrganization();
    const number = await addNumber(org);
    const phone = randomNumber();
    await textFrom(phone, number.phoneNumber, "no lead behind this number");
    const conversationId = await conversationIdOf(org, phone);
    const answers = await Promise.all([
      assign(org, conversationId, org.userIds.agent),
      assign(org, conversationId, org.userIds.admin, org.adminToken),
    ]);
    // Usually one 409; both succeed only when the second read the first's change before writing its own.
    const statuses = answers.map((answer) => answer.status).sort();
    expect([
      [200, 200],
      [200, 409],
    ]).toContainEqual(statuses);
    const written = answers.filter((answer) => answer.status === 200).map((answer) => answer.body.assignedUserId);
    const stored = await org.request("GET", `/conversations/${conversationId}`);
    expect(written).toContain(stored.body.assignedUserId);
    const events = await org.request("POST", "/events/all/my", {
      body: { filters: [{ field: "conversationId", value: conversationId }], pageSize: 100 },
    });
    const assignedEvents = events.body.items.filter(
      (event: { eventType: string }) => event.eventType === "ConversationAssigned",
    );
    expect(assignedEvents).toHaveLength(statuses.filter((status) => status === 200).length);
  });

  it("the inbox filters mine, unassigned, a user and unread, and searches by lead name or number", async () => {
    const org = await newOrganization();
    const number = await addNumber(org);
    const ada = await lead(org, "Ada", "Lovelace");
    const grace = await lead(org, "Grace", "Hopper");
    const stranger = randomNumber();
    const adaConversation = await conversationOf(org, ada.phone, number.phoneNumber);
    const graceConversation = await conversationOf(org, grace.phone, number.phoneNumber);
    await textFrom(stranger, number.phoneNumber, "who is this");
    const strangerConversation = await conversationIdOf(org, stranger);
    await assign(org, adaConversation.id, org.userIds.agent);
    await assign(org, graceConversation.id, org.userIds.admin);
    expect((await org.request("POST", `/conversations/${graceConversation.id}/read`)).status).toBe(200);

    const mine = { filters: [{ field: "assignedUserId", value: "mine" }] };
    expect(await listed(org, mine, org.agentToken)).toEqual([adaConversation.id]);
    expect(await listed(org, mine, org.adminToken)).toEqual([graceConversation.id]);
    expect(await listed(org, { filters: [{ field: "assignedUserId", value: "unassigned" }] })).toEqual([
      strangerConversation,
    ]);
    expect(await listed(org, { filters: [{ field: "assignedUserId", value: org.userIds.admin }] })).toEqual([
      graceConversation.id,
    ]);
    expect(await listed(org, { filters: [{ field: "unread", value: true }] })).toEqual(
      [adaConversation.id, strangerConversation].sort(),
    );
    expect(
      await listed(
        org,
        {
          filters: [
            { field: "unread", value: true },
            { field: "assignedUserId", value: "mine" },
          ],
        },
        org.agentToken,
      ),
    ).toEqual([adaConversation.id]);
    expect(await listed(org, { search: "hopper" })).toEqual([graceConversation.id]);
    expect(await listed(org, { search: ada.phone.slice(-7), searchFields: ["contactPhoneNumber"] })).toEqual([
      adaConversation.id,
    ]);
    // An API key is no user: `mine` names nobody.
    const byKey = await org.request("POST", "/conversations/all/my", { body: mine, token: org.apiKey });
    expect(byKey.status).toBe(400);
    expect(byKey.body.errors[0].pointer).toBe("/filters/0/value");
  });

  it("an agent held to their own leads reads and lists only the conversations assigned to them", async () => {
    const org = await newOrganization();
    const number = await addNumber(org);
    const ada = await lead(org, "Ada", "Lovelace");
    const grace = await lead(org, "Grace", "Hopper");
    const adaConversation = await conversationOf(org, ada.phone, number.phoneNumber);
    const graceConversation = await conversationOf(org, grace.phone, number.phoneNumber);
    await assign(org, adaConversation.id, org.userIds.agent);
    expect((await org.request("PUT", "/routing/settings", { body: { agentsSeeAllLeads: false } })).status).toBe(200);

    expect(await listed(org, {}, org.agentToken)).toEqual([adaConversation.id]);
    expect((await org.request("GET", `/conversations/${graceConversation.id}`, { token: org.agentToken })).status).toBe(
      404,
    );
    expect((await org.request("GET", `/conversations/${adaConversation.id}`, { token: org.agentToken })).status).toBe(
      200,
    );
    // Nor can the agent mark another's conversation read: it is not theirs to see.
    const markRead = (id: string) => org.request("POST", `/conversations/${id}/read`, { token: org.agentToken });
    expect((await markRead(graceConversation.id)).status).toBe(404);
    expect((await markRead(adaConversation.id)).status).toBe(200);
    expect(await listed(org, {})).toEqual([adaConversation.id, graceConversation.id].sort());
  });
});
