import { describe, expect, it } from "vitest";
import { newSource } from "#tests/helpers/leads";
import { agents, processedLead, routingSettings } from "#tests/helpers/routing";
import { newOrganization } from "#tests/helpers/stack";

describe("POST /leads/{id}/notes", () => {
  it("stores a note on the lead's timeline (a LeadNoteAdded event by its author), also for a lead never texted", async () => {
    const org = await newOrganization();
    const lead = await processedLead(org, await newSource(org));
    const added = await org.request("POST", `/leads/${lead.id}/notes`, {
      token: org.agentToken,
      body: { body: "  Prefers a call after 5 pm; spouse decides.  " },
    });
    expect(added.status, JSON.stringify(added.body)).toBe(201);
    expect(added.body).toMatchObject({
      leadId: lead.id,
      body: "Prefers a call after 5 pm; spouse decides.",
      authorUserId: org.userIds.agent,
    });
    const events = await org.request("POST", "/events/all/my", {
      body: { filters: [{ field: "leadId", value: lead.id }], pageSize: 50 },
    });
    expect(events.body.items.filter((event: any) => event.eventType === "LeadNoteAdded")).toMatchObject([
      {
        id: added.body.id,
        summary: "Prefers a call after 5 pm; spouse decides.",
        actorUserId: org.userIds.agent,
        leadId: lead.id,
      },
    ]);
  });

  it("answers 400 for an empty or too long note, 404 for another organization's lead or one the agent may not see", async () => {
    const org = await newOrganization();
    const other = await newOrganization();
    const lead = await processedLead(org, await newSource(org));
    for (const body of [{ body: "   " }, { body: "x".repeat(2001) }, { text: "wrong field" }]) {
      const refused = await org.request("POST", `/leads/${lead.id}/notes`, { body });
      expect(refused.status, JSON.stringify(body)).toBe(400);
      expect(refused.headers.get("content-type")).toContain("application/problem+json");
    }
    expect((await other.request("POST", `/leads/${lead.id}/notes`, { body: { body: "hi" } })).status).toBe(404);

    // Agents see only their own leads: a lead of someone else's is not theirs to annotate.
    const [agent, colleague] = await agents(org, 2);
    await routingSettings(org, { agentsSeeAllLeads: false, rules: [{ id: "colleague", pool: [colleague!.id] }] });
    const theirs = await processedLead(org, await newSource(org));
    expect(
      (await org.request("POST", `/leads/${theirs.id}/notes`, { token: agent!.token, body: { body: "hi" } })).status,
    ).toBe(404);
    expect(
      (await org.request("POST", `/leads/${theirs.id}/notes`, { token: colleague!.token, body: { body: "mine" } }))
        .status,
    ).toBe(201);
  });
});
