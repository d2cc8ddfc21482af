import { describe, expect, it } from "vitest";
import { agents, assign, routingSettings, type TestAgent } from "#tests/helpers/routing";
import { callFrom } from "#tests/helpers/calls";
import { addNumber, createLead, randomNumber, send, textFrom } from "#tests/helpers/messaging";
import { newOrganization, request, type TestOrganization } from "#tests/helpers/stack";

/** Every item of a paged list (a filtered page may be short while a token follows), as `token` sees it. */
async function listAll(org: TestOrganization, path: string, body: Record<string, unknown>, token?: string) {
  const items: any[] = [];
  let continuationToken: string | null = null;
  do {
    const response: { status: number; body: any } = await org.request("POST", path, {
      body: { pageSize: 200, ...body, ...(continuationToken ? { continuationToken } : {}) },
      ...(token ? { token } : {}),
    });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    items.push(...response.body.items);
    continuationToken = response.body.continuationToken;
  } while (continuationToken);
  return items;
}

const byOwner = (value: unknown) => ({ filters: [{ field: "assignedUserId", value }] });
const ids = (items: { id: string }[]) => items.map((item) => item.id).sort();
/** The messages and calls a list of events is about. */
const subjectsOf = (events: any[]) =>
  [
    ...new Set(
      events
        .filter((event) => ["Message", "Call"].includes(event.relatedEntityType))
        .map((event) => event.relatedEntityId as string),
    ),
  ].sort();

interface Contacted {
  leadId: string;
  phone: string;
  messageId: string;
  callId: string;
}

/** A lead assigned to `owner` (or nobody), texted and called once by the organization's owner. */
async function contactedLead(org: TestOrganization, owner: TestAgent | null): Promise<Contacted> {
  const phone = randomNumber("646");
  const { id: leadId } = await createLead(org, phone);
  if (owner) await assign(org, leadId, owner.id);
  const message = await send(org, { leadId, body: "Hello from the team" });
  expect(message.status, JSON.stringify(message.body)).toBe(202);
  const call = await org.request("POST", "/calls", { body: { leadId } });
  expect(call.status, JSON.stringify(call.body)).toBe(202);
  // Both belong to the lead's agent when they were written, whoever sent or placed them.
  expect(message.body.assignedUserId).toBe(owner?.id ?? null);
  expect(call.body).toMatchObject({ assignedUserId: owner?.id ?? null, userId: org.userIds.owner });
  return { leadId, phone, messageId: message.body.id, callId: call.body.id };
}

describe("calls, messages and events follow the lead's agent (issue 28)", () => {
  // Two agents, three leads, three texts and three calls through the stack, then each list under two settings.
  it(
    "lists by owner (mine, unassigned, a user) on the call log, the calls of a number and the events, and holds an agent to their own",
    { timeout: 180_000 },
    async () => {
      const [org, other] = await Promise.all([newOrganization(), newOrganization()]);
      const [ann, bob] = await agents(org, 2);
      await addNumber(org);
      const annLead = await contactedLead(org, ann!);
      const bobLead = await contactedLead(org, bob!);
      const nobodys = await contactedLead(org, null);

      // Everyone sees everything (the default), filtering by owner.
      const calls = (body: Record<string, unknown>, token?: string) => listAll(org, "/calls/all/my", body, token);
      expect(ids(await calls(byOwner(ann!.id)))).toEqual([annLead.callId]);
      expect(ids(await calls(byOwner("unassigned")))).toEqual([nobodys.callId]);
      expect(ids(await calls(byOwner([ann!.id, bob!.id])))).toEqual([annLead.callId, bobLead.callId].sort());
      expect(ids(await calls(byOwner("mine"), bob!.token))).toEqual([bobLead.callId]);
      expect(ids(await calls({}, ann!.token))).toHaveLength(3);
      const byNumber = (lead: Contacted, body: Record<string, unknown>, token?: string) =>
        listAll(org, `/events/calls/phone/${encodeURIComponent(lead.phone)}`, body, token);
      expect(ids(await byNumber(annLead, byOwner("mine"), ann!.token))).toEqual([annLead.callId]);
      expect(ids(await byNumber(annLead, byOwner("mine"), bob!.token))).toEqual([]);

      const events = (body: Record<string, unknown>, token?: string, query = "") =>
        listAll(org, `/events/all/my${query}`, body, token);
      const annEvents = await events(byOwner("mine"), ann!.token);
      expect(annEvents.every((event) => event.assignedUserId === ann!.id)).toBe(true);
      expect(annEvents.map((event) => event.eventType)).toEqual(
        expect.arrayContaining(["LeadAssigned", "MessageAccepted", "CallQueued"]),
      );
      expect(subjectsOf(annEvents)).toEqual([annLead.messageId, annLead.callId].sort());
      const unassigned = await events(byOwner("unassigned"));
      expect(unassigned.some((event) => event.relatedEntityId === nobodys.messageId)).toBe(true);
      expect(unassigned.some((event) => [annLead.callId, bobLead.callId].includes(event.relatedEntityId))).toBe(false);

      // `mine` names a user: an API key has none.
      for (const path of [
        "/calls/all/my",
        "/events/all/my",
        `/events/calls/phone/${encodeURIComponent(annLead.phone)}`,
      ]) {
        const refused = await org.request("POST", path, { body: byOwner("mine"), token: org.apiKey });
        expect(refused.status, path).toBe(400);
        expect(refused.body.errors[0].pointer).toBe("/filters/0/value");
      }

      // Agents held to their own leads: every list shows only theirs, whatever they filter on; reads of others' are 404.
      await routingSettings(org, { agentsSeeAllLeads: false });
      expect(ids(await calls({}, ann!.token))).toEqual([annLead.callId]);
      expect(ids(await calls(byOwner(bob!.id), ann!.token))).toEqual([]);
      expect(ids(await calls(byOwner("unassigned"), ann!.token))).toEqual([]);
      expect(ids(await byNumber(bobLead, {}, ann!.token))).toEqual([]);
      expect((await events({}, ann!.token)).every((event) => event.assignedUserId === ann!.id)).toBe(true);
      expect(subjectsOf(await events({}, ann!.token, `?leadId=${bobLead.leadId}`))).toEqual([]);
      const read = (path: string, token: string) => org.request("GET", path, { token });
      expect((await read(`/calls/${bobLead.callId}`, ann!.token)).status).toBe(404);
      expect((await read(`/messages/${bobLead.messageId}`, ann!.token)).status).toBe(404);
      expect((await read(`/calls/${nobodys.callId}`, ann!.token)).status).toBe(404);
      expect((await read(`/calls/${annLead.callId}`, ann!.token)).status).toBe(200);
      expect((await read(`/messages/${annLead.messageId}`, ann!.token)).status).toBe(200);
      expect(ids(await calls({}, org.adminToken))).toHaveLength(3);

      // Bob's lead passes to Ann: what was written for Bob stays his on the lists (a snapshot), while Ann, whose
      // lead and conversation it now is, reads its history by id and as the lead's whole timeline.
      await assign(org, bobLead.leadId, ann!.id);
      // The conversation follows its lead through the table's stream (about a second).
      await expect
        .poll(async () => (await read(`/calls/${bobLead.callId}`, ann!.token)).body.assignedUserId, { timeout: 20_000 })
        .toBe(bob!.id);
      expect((await read(`/messages/${bobLead.messageId}`, ann!.token)).status).toBe(200);
      expect(ids(await calls({}, ann!.token))).toEqual([annLead.callId]);
      expect(ids(await calls({}, bob!.token))).toEqual([bobLead.callId]);
      expect((await read(`/calls/${bobLead.callId}`, bob!.token)).status).toBe(200);
      const timeline = await events({}, ann!.token, `?leadId=${bobLead.leadId}`);
      expect(subjectsOf(timeline)).toEqual(expect.arrayContaining([bobLead.messageId, bobLead.callId]));
      expect(timeline.find((event) => event.relatedEntityId === bobLead.callId).assignedUserId).toBe(bob!.id);
      const asFiltered = await events({ filters: [{ field: "leadId", value: bobLead.leadId }] }, ann!.token);
      expect(subjectsOf(asFiltered)).toEqual(expect.arrayContaining([bobLead.messageId, bobLead.callId]));

      // Agents who see every lead see every call again.
      await routingSettings(org, { agentsSeeAllLeads: true });
      expect(ids(await calls({}, ann!.token))).toEqual([annLead.callId, bobLead.callId, nobodys.callId].sort());
      expect((await read(`/calls/${nobodys.callId}`, ann!.token)).status).toBe(200);

      // Another organization's user id names nobody here, and this organization's calls are not theirs to read.
      expect(await listAll(other, "/calls/all/my", byOwner(ann!.id))).toEqual([]);
      expect(await listAll(other, "/events/all/my", byOwner(ann!.id))).toEqual([]);
      expect(await listAll(org, "/calls/all/my", byOwner(other.userIds.agent))).toEqual([]);
      expect((await request("GET", `/calls/${annLead.callId}`, { token: other.ownerToken })).status).toBe(404);
      expect((await request("GET", `/messages/${annLead.messageId}`, { token: other.ownerToken })).status).toBe(404);
    },
  );

  it("a text and a call from the lead belong to the lead's agent", { timeout: 120_000 }, async () => {
    const org = await newOrganization();
    const [ann] = await agents(org, 1);
    const ours = await addNumber(org);
    const phone = randomNumber("646");
    const { id: leadId } = await createLead(org, phone);
    await assign(org, leadId, ann!.id);
    await textFrom(phone, ours.phoneNumber, "Is Ann there?");
    await callFrom(phone, ours.phoneNumber);
    await routingSettings(org, { agentsSeeAllLeads: false });

    await expect
      .poll(async () => ids(await listAll(org, "/calls/all/my", {}, ann!.token)).length, { timeout: 20_000 })
      .toBe(1);
    const [call] = await listAll(org, "/calls/all/my", byOwner("mine"), ann!.token);
    expect(call).toMatchObject({ direction: "Inbound", fromPhoneNumber: phone, assignedUserId: ann!.id, userId: null });
    const received = (await listAll(org, "/events/all/my", {}, ann!.token)).find(
      (event) => event.eventType === "MessageReceived",
    );
    expect(received).toMatchObject({ leadId, assignedUserId: ann!.id });
    const message = await org.request("GET", `/messages/${received.relatedEntityId}`, { token: ann!.token });
    expect(message.body).toMatchObject({ direction: "Inbound", assignedUserId: ann!.id });
  });
});
