import { randomUUID } from "node:crypto";
import { afterAll, describe, expect, it } from "vitest";
import { Users } from "#core/users/index";
import { intakeByQuery, newSource, uniquePhone, waitForLead } from "#tests/helpers/leads";
import { newOrganization, userToken, type TestOrganization } from "#tests/helpers/stack";
import { untilStatus } from "#tests/helpers/team";
import { ofType, startReceiver, verified, type Receiver } from "#tests/helpers/webhooks";

const receivers: Receiver[] = [];
afterAll(async () => void (await Promise.all(receivers.map((receiver) => receiver.close()))));

/** More agents of the organization, each with a token. */
async function agents(org: TestOrganization, count: number): Promise<{ id: string; token: string }[]> {
  return Promise.all(
    Array.from({ length: count }, async (_, index) => {
      const user = await Users.add(org.organizationId, { email: `agent-${randomUUID()}@example.com`, name: `Agent ${index + 1}`, role: "agent" });
      return { id: user.id, token: await userToken({ organizationId: org.organizationId, userId: user.id, role: "agent", email: user.email }) };
    }),
  );
}

async function routingSettings(org: TestOrganization, body: Record<string, unknown>) {
  const response = await org.request("PUT", "/routing/settings", { body });
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body;
}

async function processedLead(org: TestOrganization, source: Awaited<ReturnType<typeof newSource>>, params: Record<string, string> = {}) {
  const created = await intakeByQuery(source, { FirstName: "Ada", Phone: uniquePhone(), ...params });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return waitForLead(org, created.body.id, (lead) => lead.processingStatus === "Processed");
}

async function listedIds(org: TestOrganization, token: string, filters: unknown[] = []): Promise<string[]> {
  const response = await org.request("POST", "/leads/all/my", { token, body: { pageSize: 100, filters } });
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body.items.map((lead: { id: string }) => lead.id);
}

async function leadEvents(org: TestOrganization, leadId: string) {
  const response = await org.request("POST", "/events/all/my", { body: { filters: [{ field: "leadId", value: leadId }], pageSize: 50 } });
  expect(response.status).toBe(200);
  return response.body.items as { eventType: string; relatedEntityId: string | null; description: string }[];
}

describe("assignment (PUT /leads/{id}/assignee)", () => {
  it("assigns, reassigns and unassigns; records each on the timeline, the events list and as lead.assigned webhooks; lists filter by assignee", async () => {
    const org = await newOrganization();
    const [ann, bob] = await agents(org, 2);
    const receiver = await startReceiver();
    receivers.push(receiver);
    const endpoint = await org.request("POST", "/webhook-endpoints", { body: { url: receiver.url, enabledEventTypes: ["lead.assigned", "lead.unassigned"] } });
    expect(endpoint.status, JSON.stringify(endpoint.body)).toBe(201);
    const source = await newSource(org);
    const lead = await processedLead(org, source);
    const other = await processedLead(org, source);
    expect(lead).toMatchObject({ assignedUserId: null, assignedAt: null, assignedBy: null, needsAttention: false });

    const assigned = await org.request("PUT", `/leads/${lead.id}/assignee`, { body: { userId: ann!.id } });
    expect(assigned.status, JSON.stringify(assigned.body)).toBe(200);
    expect(assigned.body).toMatchObject({ assignedUserId: ann!.id, assignedAt: expect.any(String), assignedBy: { method: "manual", ruleId: null, userId: org.userIds.owner } });
    expect((await org.request("GET", `/leads/${lead.id}`)).body.assignedUserId).toBe(ann!.id);

    expect(await listedIds(org, ann!.token, [{ field: "assignedUserId", value: "mine" }])).toEqual([lead.id]);
    expect(await listedIds(org, org.ownerToken, [{ field: "assignedUserId", value: ann!.id }])).toEqual([lead.id]);
    expect(await listedIds(org, org.ownerToken, [{ field: "assignedUserId", value: "unassigned" }])).toEqual([other.id]);

    const reassigned = await org.request("PUT", `/leads/${lead.id}/assignee`, { body: { userId: bob!.id }, token: org.adminToken });
    expect(reassigned.body).toMatchObject({ assignedUserId: bob!.id });
    const cleared = await org.request("PUT", `/leads/${lead.id}/assignee`, { body: { userId: null }, token: org.apiKey });
    expect(cleared.body).toMatchObject({ assignedUserId: null, assignedAt: null, assignedBy: null });

    const events = await leadEvents(org, lead.id);
    expect(events.filter((event) => event.eventType === "LeadAssigned").map((event) => event.relatedEntityId).sort()).toEqual([ann!.id, bob!.id].sort());
    expect(events.filter((event) => event.eventType === "LeadUnassigned")).toHaveLength(1);
    expect(events.find((event) => event.relatedEntityId === ann!.id)?.description).toContain("assigned to Agent 1");

    await receiver.waitFor((received) => ofType(received, "lead.assigned").length === 2 && ofType(received, "lead.unassigned").length === 1, 30_000);
    const payloads = ofType(receiver.received, "lead.assigned").map((delivery) => verified(endpoint.body.secret, delivery));
    expect(payloads.map((payload) => payload.event.relatedEntityId).sort()).toEqual([ann!.id, bob!.id].sort());
    expect(payloads[0].data.id).toBe(lead.id);
  });

  it("refuses an unknown or deactivated assignee (400) and an unknown lead (404)", async () => {
    const org = await newOrganization();
    const lead = await processedLead(org, await newSource(org));
    const unknown = await org.request("PUT", `/leads/${lead.id}/assignee`, { body: { userId: "01JNOSUCHUSER0000000000000" } });
    expect(unknown.status).toBe(400);
    expect(unknown.body.errors[0].pointer).toBe("/userId");
    const [gone] = await agents(org, 1);
    expect((await org.request("POST", `/users/${gone!.id}/deactivate`)).status).toBe(200);
    await untilStatus(() => org.request("PUT", `/leads/${lead.id}/assignee`, { body: { userId: gone!.id } }), 400);
    const missing = await org.request("PUT", "/leads/01JZZZZZZZZZZZZZZZZZZZZZZZ/assignee", { body: { userId: org.userIds.agent } });
    expect(missing.status).toBe(404);
  });

  it("lets an agent claim an unassigned lead only where the organization allows it, and only once", async () => {
    const org = await newOrganization();
    const [ann, bob] = await agents(org, 2);
    const lead = await processedLead(org, await newSource(org));
    const refused = await org.request("PUT", `/leads/${lead.id}/assignee`, { body: { userId: ann!.id }, token: ann!.token });
    expect(refused.status).toBe(403);

    await routingSettings(org, { agentsMayClaim: true });
    expect((await org.request("PUT", `/leads/${lead.id}/assignee`, { body: { userId: bob!.id }, token: ann!.token })).status).toBe(403);
    const claims = await Promise.all([ann!, bob!].map((agent) => org.request("PUT", `/leads/${lead.id}/assignee`, { body: { userId: agent.id }, token: agent.token })));
    expect(claims.map((claim) => claim.status).sort()).toEqual([200, 409]);
    const winner = claims.find((claim) => claim.status === 200)!.body;
    expect(winner.assignedBy.method).toBe("claim");
    expect((await org.request("GET", `/leads/${lead.id}`)).body.assignedUserId).toBe(winner.assignedUserId);
  });

  it("holds agents to their own leads when the organization says so (lists and reads), never owners or admins", async () => {
    const org = await newOrganization();
    const [ann, bob] = await agents(org, 2);
    const source = await newSource(org);
    const annLead = await processedLead(org, source);
    const bobLead = await processedLead(org, source);
    await org.request("PUT", `/leads/${annLead.id}/assignee`, { body: { userId: ann!.id } });
    await org.request("PUT", `/leads/${bobLead.id}/assignee`, { body: { userId: bob!.id } });
    expect((await listedIds(org, ann!.token)).sort()).toEqual([annLead.id, bobLead.id].sort());

    const settings = await routingSettings(org, { agentsSeeAllLeads: false });
    expect(settings).toMatchObject({ agentsSeeAllLeads: false, agentsMayClaim: false, rules: [] });
    expect(await listedIds(org, ann!.token)).toEqual([annLead.id]);
    expect(await listedIds(org, ann!.token, [{ field: "assignedUserId", value: bob!.id }])).toEqual([]);
    expect((await org.request("GET", `/leads/${bobLead.id}`, { token: ann!.token })).status).toBe(404);
    expect((await org.request("GET", `/leads/${annLead.id}`, { token: ann!.token })).status).toBe(200);
    expect((await listedIds(org, org.adminToken)).sort()).toEqual([annLead.id, bobLead.id].sort());
    await untilStatus(() => org.request("GET", "/routing/settings", { token: ann!.token }), 200);
    expect((await org.request("PUT", "/routing/settings", { body: {}, token: ann!.token })).status).toBe(403);
  });
});
