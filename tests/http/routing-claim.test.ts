import { describe, expect, it } from "vitest";
import { readyToText } from "#tests/helpers/automations";
import { newSource } from "#tests/helpers/leads";
import { send } from "#tests/helpers/messaging";
import { agents, routedLead, routingSettings } from "#tests/helpers/routing";
import { newOrganization } from "#tests/helpers/stack";

describe("first to claim", () => {
  it("offers a lead to the pool; of 6 agents claiming at once exactly one wins and the others get 409; nobody outside the pool may claim", async () => {
    const org = await newOrganization();
    const pool = await agents(org, 6);
    const [outsider] = await agents(org, 1);
    await routingSettings(org, {
      agentsSeeAllLeads: false,
      rules: [{ id: "broadcast", strategy: "firstToClaim", pool: pool.map((agent) => agent.id) }],
    });
    const lead = await routedLead(org, await newSource(org));
    expect(lead).toMatchObject({
      assignedUserId: null,
      needsAttention: false,
      offeredTo: pool.map((agent) => agent.id),
    });
    // Offered agents read the lead even when agents see only theirs; the outsider does not, and may not claim it.
    expect((await org.request("GET", `/leads/${lead.id}`, { token: pool[3]!.token })).status).toBe(200);
    expect((await org.request("GET", `/leads/${lead.id}`, { token: outsider!.token })).status).toBe(404);
    expect(
      (
        await org.request("PUT", `/leads/${lead.id}/assignee`, {
          body: { userId: pool[0]!.id },
          token: pool[1]!.token,
        })
      ).status,
    ).toBe(403);

    const claims = await Promise.all(
      pool.map((agent) =>
        org.request("PUT", `/leads/${lead.id}/assignee`, { body: { userId: agent.id }, token: agent.token }),
      ),
    );
    expect(claims.map((claim) => claim.status).sort()).toEqual([200, 409, 409, 409, 409, 409]);
    const winner = claims.find((claim) => claim.status === 200)!.body;
    expect(winner.assignedBy).toMatchObject({ method: "claim", userId: winner.assignedUserId });
    expect((await org.request("GET", `/leads/${lead.id}`)).body.assignedUserId).toBe(winner.assignedUserId);
    const events = await org.request("POST", "/events/all/my", {
      body: { filters: [{ field: "leadId", value: lead.id }], pageSize: 50 },
    });
    expect(events.body.items.filter((event: any) => event.eventType === "LeadAssigned")).toHaveLength(1);
  });
});

describe("open-leads cap", () => {
  it("gives a user at most openCap unanswered routed leads; answering one (an SMS sent) or reassigning one frees a place", async () => {
    const org = await newOrganization();
    await readyToText(org);
    const [ann] = await agents(org, 1);
    await routingSettings(org, {
      rules: [{ id: "ann", pool: [ann!.id] }],
      agents: [{ userId: ann!.id, openCap: 2 }],
    });
    const source = await newSource(org);
    const leads = await Promise.all([1, 2, 3].map(() => routedLead(org, source)));
    const annLeads = leads.filter((lead) => lead.assignedUserId === ann!.id);
    expect(annLeads).toHaveLength(2);
    expect(leads.filter((lead) => lead.assignedUserId === null && lead.needsAttention)).toHaveLength(1);

    // Still full: the next lead is flagged.
    expect((await routedLead(org, source)).assignedUserId).toBeNull();

    // Answer one of Ann's leads: once the message is sent (counted as the lead's response), she has room for one.
    const sent = await send(org, { leadId: annLeads[0]!.id, body: "Hi, this is Ann" });
    expect(sent.status, JSON.stringify(sent.body)).toBe(202);
    expect(await untilAssignedTo(org, source, ann!.id)).toBe(true);
    expect((await routedLead(org, source)).assignedUserId).toBeNull();

    // Unassigning another frees one more place at once.
    const cleared = await org.request("PUT", `/leads/${annLeads[1]!.id}/assignee`, { body: { userId: null } });
    expect(cleared.status).toBe(200);
    expect((await routedLead(org, source)).assignedUserId).toBe(ann!.id);
    expect((await routedLead(org, source)).assignedUserId).toBeNull();
  });
});

/** Posts leads until one is routed to the user (the answer reaches routing through the event stream), or gives up. */
async function untilAssignedTo(
  org: Awaited<ReturnType<typeof newOrganization>>,
  source: Awaited<ReturnType<typeof newSource>>,
  userId: string,
  timeoutMs = 45_000,
): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if ((await routedLead(org, source)).assignedUserId === userId) return true;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  return false;
}
