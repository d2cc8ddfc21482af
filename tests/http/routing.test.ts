import { randomUUID } from "node:crypto";
import { afterAll, describe, expect, it } from "vitest";
import { intakeByQuery, newSource, uniquePhone, waitForLead } from "#tests/helpers/leads";
import { agents, processedLead, routingSettings } from "#tests/helpers/routing";
import { newOrganization, type TestOrganization } from "#tests/helpers/stack";
import { untilStatus } from "#tests/helpers/team";
import { payloadsOf, subscribeToEvents, type EventStream } from "#tests/helpers/webhooks";

const streams: EventStream[] = [];
afterAll(async () => void (await Promise.all(streams.map((stream) => stream.close()))));

async function listedIds(org: TestOrganization, token: string, filters: unknown[] = []): Promise<string[]> {
  const response = await org.request("POST", "/leads/all/my", { token, body: { pageSize: 100, filters } });
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body.items.map((lead: { id: string }) => lead.id);
}

async function leadEvents(org: TestOrganization, leadId: string) {
  const response = await org.request("POST", "/events/all/my", {
    body: { filters: [{ field: "leadId", value: leadId }], pageSize: 50 },
  });
  expect(response.status).toBe(200);
  return response.body.items as { eventType: string; relatedEntityId: string | null; description: string }[];
}

describe("assignment (PUT /leads/{id}/assignee)", () => {
  it("assigns, reassigns and unassigns; records each on the timeline, the events list and as lead.assigned webhooks; lists filter by assignee", async () => {
    const org = await newOrganization();
    const [ann, bob] = await agents(org, 2);
    const webhooks = await subscribeToEvents(org, ["lead.assigned", "lead.unassigned"]);
    streams.push(webhooks);
    const source = await newSource(org);
    const lead = await processedLead(org, source);
    const other = await processedLead(org, source);
    expect(lead).toMatchObject({ assignedUserId: null, assignedAt: null, assignedBy: null, needsAttention: false });

    const assigned = await org.request("PUT", `/leads/${lead.id}/assignee`, { body: { userId: ann!.id } });
    expect(assigned.status, JSON.stringify(assigned.body)).toBe(200);
    expect(assigned.body).toMatchObject({
      assignedUserId: ann!.id,
      assignedAt: expect.any(String),
      assignedBy: { method: "manual", ruleId: null, userId: org.userIds.owner },
    });
    expect((await org.request("GET", `/leads/${lead.id}`)).body.assignedUserId).toBe(ann!.id);

    expect(await listedIds(org, ann!.token, [{ field: "assignedUserId", value: "mine" }])).toEqual([lead.id]);
    expect(await listedIds(org, org.ownerToken, [{ field: "assignedUserId", value: ann!.id }])).toEqual([lead.id]);
    expect(await listedIds(org, org.ownerToken, [{ field: "assignedUserId", value: "unassigned" }])).toEqual([
      other.id,
    ]);

    const reassigned = await org.request("PUT", `/leads/${lead.id}/assignee`, {
      body: { userId: bob!.id },
      token: org.adminToken,
    });
    expect(reassigned.body).toMatchObject({ assignedUserId: bob!.id });
    const cleared = await org.request("PUT", `/leads/${lead.id}/assignee`, {
      body: { userId: null },
      token: org.apiKey,
    });
    expect(cleared.body).toMatchObject({ assignedUserId: null, assignedAt: null, assignedBy: null });

    const events = await leadEvents(org, lead.id);
    expect(
      events
        .filter((event) => event.eventType === "LeadAssigned")
        .map((event) => event.relatedEntityId)
        .sort(),
    ).toEqual([ann!.id, bob!.id].sort());
    expect(events.filter((event) => event.eventType === "LeadUnassigned")).toHaveLength(1);
    expect(events.find((event) => event.relatedEntityId === ann!.id)?.description).toContain("assigned to Agent 1");

    const delivered = await webhooks.awaitEvents(
      (all) => payloadsOf(all, "lead.assigned").length === 2 && payloadsOf(all, "lead.unassigned").length === 1,
    );
    const payloads = payloadsOf(delivered, "lead.assigned");
    expect(payloads.map((payload) => payload.event.relatedEntityId).sort()).toEqual([ann!.id, bob!.id].sort());
    expect(payloads[0]!.data.id).toBe(lead.id);
  });

  it("refuses an unknown or deactivated assignee (400) and an unknown lead (404)", async () => {
    const org = await newOrganization();
    const lead = await processedLead(org, await newSource(org));
    const unknown = await org.request("PUT", `/leads/${lead.id}/assignee`, {
      body: { userId: "01JNOSUCHUSER0000000000000" },
    });
    expect(unknown.status).toBe(400);
    expect(unknown.body.errors[0].pointer).toBe("/userId");
    const [gone] = await agents(org, 1);
    expect((await org.request("POST", `/users/${gone!.id}/deactivate`)).status).toBe(200);
    await untilStatus(() => org.request("PUT", `/leads/${lead.id}/assignee`, { body: { userId: gone!.id } }), 400);
    const missing = await org.request("PUT", "/leads/01JZZZZZZZZZZZZZZZZZZZZZZZ/assignee", {
      body: { userId: org.userIds.agent },
    });
    expect(missing.status).toBe(404);
  });

  it("lets an agent claim an unassigned lead only where the organization allows it, and only once", async () => {
    const org = await newOrganization();
    const [ann, bob] = await agents(org, 2);
    const lead = await processedLead(org, await newSource(org));
    const refused = await org.request("PUT", `/leads/${lead.id}/assignee`, {
      body: { userId: ann!.id },
      token: ann!.token,
    });
    expect(refused.status).toBe(403);

    await routingSettings(org, { agentsMayClaim: true });
    expect(
      (await org.request("PUT", `/leads/${lead.id}/assignee`, { body: { userId: bob!.id }, token: ann!.token })).status,
    ).toBe(403);
    const claims = await Promise.all(
      [ann!, bob!].map((agent) =>
        org.request("PUT", `/leads/${lead.id}/assignee`, { body: { userId: agent.id }, token: agent.token }),
      ),
    );
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

/** Every lead of the organization, read through the paging query. */
async function allLeads(org: TestOrganization): Promise<any[]> {
  const leads: any[] = [];
  let continuationToken: string | null = null;
  do {
    const response: any = await org.request("POST", "/leads/all/my", { body: { pageSize: 100, continuationToken } });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    leads.push(...response.body.items);
    continuationToken = response.body.continuationToken;
  } while (continuationToken);
  return leads;
}

/** Waits until the organization holds `count` leads, each processed and routed (assigned, or flagged). */
async function untilRouted(org: TestOrganization, count: number, timeoutMs = 120_000): Promise<any[]> {
  const deadline = Date.now() + timeoutMs;
  let leads: any[] = [];
  while (Date.now() < deadline) {
    leads = await allLeads(org);
    if (leads.length === count && leads.every((lead) => lead.assignedUserId || lead.needsAttention)) return leads;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  throw new Error(
    `${leads.filter((lead) => lead.assignedUserId || lead.needsAttention).length} of ${count} leads routed`,
  );
}

const tally = (leads: any[]) =>
  leads.reduce<Record<string, number>>(
    (counts, lead) => ({ ...counts, [lead.assignedUserId]: (counts[lead.assignedUserId] ?? 0) + 1 }),
    {},
  );

describe("routing rules", () => {
  it("sends each lead to the first matching rule's pool in round-robin order, skipping deactivated users, and flags what nobody takes", async () => {
    const org = await newOrganization();
    const [ann, bob, cat, dan] = await agents(org, 4);
    const solar = await newSource(org);
    const other = await newSource(org);
    const settings = await routingSettings(org, {
      rules: [
        { id: "florida", name: "Florida", conditions: { states: ["fl"] }, pool: [ann!.id] },
        { id: "solar", conditions: { sourceIds: [solar.sourceId] }, pool: [bob!.id, cat!.id, dan!.id] },
      ],
    });
    expect(settings.rules).toEqual([
      { id: "florida", name: "Florida", conditions: { states: ["FL"] }, pool: [ann!.id], strategy: "roundRobin" },
      {
        id: "solar",
        name: null,
        conditions: { sourceIds: [solar.sourceId] },
        pool: [bob!.id, cat!.id, dan!.id],
        strategy: "roundRobin",
      },
    ]);
    expect((await org.request("GET", "/routing/settings", { token: ann!.token })).body.rules).toHaveLength(2);

    // Routing follows the Processed write (before the automation trigger): wait for the assignment itself.
    const florida = await waitForLead(
      org,
      (await intakeByQuery(solar, { FirstName: "Ada", Phone: uniquePhone(), State: "FL" })).body.id,
      (lead) => lead.assignedUserId,
    );
    expect(florida).toMatchObject({
      assignedUserId: ann!.id,
      assignedBy: { method: "rule", ruleId: "florida", userId: null },
      needsAttention: false,
    });
    const inTurn = [];
    for (let index = 0; index < 4; index++)
      inTurn.push(
        (
          await waitForLead(
            org,
            (await intakeByQuery(solar, { Phone: uniquePhone() })).body.id,
            (lead) => lead.assignedUserId,
          )
        ).assignedUserId,
      );
    expect(inTurn).toEqual([bob!.id, cat!.id, dan!.id, bob!.id]);
    const events = await leadEvents(org, florida.id);
    expect(events.map((event) => event.eventType).sort()).toEqual(["LeadAssigned", "LeadCreated"]);
    expect(events.find((event) => event.eventType === "LeadAssigned")?.description).toContain(
      "by routing rule florida",
    );

    expect((await org.request("POST", `/users/${cat!.id}/deactivate`)).status).toBe(200);
    const afterDeactivation = [];
    for (let index = 0; index < 2; index++)
      afterDeactivation.push(
        (
          await waitForLead(
            org,
            (await intakeByQuery(solar, { Phone: uniquePhone() })).body.id,
            (lead) => lead.assignedUserId,
          )
        ).assignedUserId,
      );
    expect(afterDeactivation).not.toContain(cat!.id);

    const nobody = await waitForLead(
      org,
      (await intakeByQuery(other, { Phone: uniquePhone() })).body.id,
      (lead) => lead.needsAttention,
    );
    expect(nobody).toMatchObject({ processingStatus: "Processed", assignedUserId: null, needsAttention: true });
    expect(await listedIds(org, org.ownerToken, [{ field: "assignedUserId", value: "unassigned" }])).toEqual([
      nobody.id,
    ]);
  });

  it("refuses a pool naming a user of no organization, and two rules with one id", async () => {
    const org = await newOrganization();
    const stranger = await newOrganization();
    const unknown = await org.request("PUT", "/routing/settings", {
      body: {
        rules: [{ pool: [org.userIds.agent, stranger.userIds.agent] }],
        agents: [{ userId: stranger.userIds.admin, dailyCap: 5 }],
      },
    });
    expect(unknown.status).toBe(400);
    expect(unknown.body.errors).toEqual([
      expect.objectContaining({ pointer: "/rules/0/pool/1" }),
      expect.objectContaining({ pointer: "/agents/0/userId" }),
    ]);
    const twice = await org.request("PUT", "/routing/settings", {
      body: {
        rules: [
          { id: "a", pool: [org.userIds.agent] },
          { id: "a", pool: [org.userIds.agent] },
        ],
      },
    });
    expect(twice.status).toBe(400);
    const badState = await org.request("PUT", "/routing/settings", {
      body: { rules: [{ conditions: { states: ["Florida"] }, pool: [org.userIds.agent] }] },
    });
    expect(badState.status).toBe(400);
  });

  it("keeps one admin's save from silently undoing another's: a save at a stale version is 409 and changes nothing", async () => {
    const org = await newOrganization();
    const fresh = await org.request("GET", "/routing/settings");
    expect(fresh.body).toMatchObject({ version: 0, modifiedAt: null });
    const rule = (name: string) => ({ name, pool: [org.userIds.agent] });
    // Two admins read version 0; the first saves, the second's save (at version 0) would drop the first's rule.
    const first = await org.request("PUT", "/routing/settings", { body: { version: 0, rules: [rule("Florida")] } });
    expect(first.status).toBe(200);
    expect(first.body.version).toBe(1);
    const second = await org.request("PUT", "/routing/settings", { body: { version: 0, rules: [rule("Texas")] } });
    expect(second.status).toBe(409);
    expect(second.headers.get("content-type")).toContain("application/problem+json");
    expect(second.body.detail).toContain("version 1, not 0");
    expect((await org.request("GET", "/routing/settings")).body).toMatchObject({
      version: 1,
      rules: [expect.objectContaining({ name: "Florida" })],
    });
    // Read again, the change applies on top; without a version a save replaces whatever is stored.
    const reread = await org.request("PUT", "/routing/settings", { body: { version: 1, rules: [rule("Texas")] } });
    expect(reread.body).toMatchObject({ version: 2, rules: [expect.objectContaining({ name: "Texas" })] });
    expect((await org.request("PUT", "/routing/settings", { body: { rules: [] } })).body.version).toBe(3);
    // Saves at once over one version: exactly one wins.
    const racing = await Promise.all(
      ["A", "B", "C"].map((name) =>
        org.request("PUT", "/routing/settings", { body: { version: 3, rules: [rule(name)] } }),
      ),
    );
    expect(racing.map((answer) => answer.status).sort()).toEqual([200, 409, 409]);
    expect((await org.request("GET", "/routing/settings")).body.version).toBe(4);
  });

  it("routes a lead only to users licensed for its state; a lead nobody may take is flagged", async () => {
    const org = await newOrganization();
    const [ann, bob] = await agents(org, 2);
    const source = await newSource(org);
    const settings = await routingSettings(org, {
      rules: [{ id: "licensed", pool: [ann!.id, bob!.id] }],
      agents: [
        { userId: ann!.id, licensedStates: ["fl"] },
        { userId: bob!.id, licensedStates: ["TX", "FL"] },
      ],
    });
    expect(settings.agents).toEqual([
      { userId: ann!.id, dailyCap: null, hourlyCap: null, openCap: null, licensedStates: ["FL"] },
      { userId: bob!.id, dailyCap: null, hourlyCap: null, openCap: null, licensedStates: ["TX", "FL"] },
    ]);
    const routed = async (params: Record<string, string>) =>
      waitForLead(
        org,
        (await intakeByQuery(source, { Phone: uniquePhone(), ...params })).body.id,
        (lead) => lead.assignedUserId || lead.needsAttention,
      );
    expect((await routed({ State: "TX" })).assignedUserId).toBe(bob!.id);
    expect((await routed({ State: "tx" })).assignedUserId).toBe(bob!.id);
    expect((await routed({ State: "GA" })).needsAttention).toBe(true);
    expect((await routed({})).needsAttention).toBe(true);
    const florida = [(await routed({ State: "FL" })).assignedUserId, (await routed({ State: "FL" })).assignedUserId];
    expect(florida.sort()).toEqual([ann!.id, bob!.id].sort());
  });

  it("never takes a user past their daily cap, even with leads arriving at once through two rules; the rest are flagged", async () => {
    const org = await newOrganization();
    const [ann, bob] = await agents(org, 2);
    // Two rules share the pool: their counters are separate items, so only the day count keeps the cap.
    await routingSettings(org, {
      rules: [
        { id: "florida", conditions: { states: ["FL"] }, pool: [ann!.id, bob!.id] },
        { id: "others", pool: [bob!.id, ann!.id] },
      ],
      agents: [
        { userId: ann!.id, dailyCap: 3 },
        { userId: bob!.id, dailyCap: 4 },
      ],
    });
    const source = await newSource(org);
    const created = await Promise.all(
      Array.from({ length: 12 }, (_, index) =>
        intakeByQuery(source, { Phone: uniquePhone(), State: index % 2 ? "FL" : "NY" }),
      ),
    );
    expect(created.every((response) => response.status === 201)).toBe(true);
    const leads = await untilRouted(org, 12);
    expect(tally(leads)).toEqual({ [ann!.id]: 3, [bob!.id]: 4, null: 5 });
    expect(leads.filter((lead) => !lead.assignedUserId).every((lead) => lead.needsAttention)).toBe(true);
  }, 120_000);

  it("weighted: a member of weight 3 takes three leads for every one of a member of weight 1, exactly, with leads arriving at once", async () => {
    const org = await newOrganization();
    const [ann, bob] = await agents(org, 2);
    const settings = await routingSettings(org, {
      rules: [{ id: "weighted", pool: [ann!.id, bob!.id], strategy: "weighted", weights: { [ann!.id]: 3 } }],
    });
    expect(settings.rules[0]).toMatchObject({ strategy: "weighted", weights: { [ann!.id]: 3 } });
    const source = await newSource(org);
    const created = await Promise.all(
      Array.from({ length: 40 }, () => intakeByQuery(source, { Phone: uniquePhone() })),
    );
    expect(created.every((response) => response.status === 201)).toBe(true);
    expect(tally(await untilRouted(org, 40))).toEqual({ [ann!.id]: 30, [bob!.id]: 10 });
  }, 120_000);

  it("never takes a user past their hourly cap with leads arriving at once; the rest go to the others", async () => {
    const org = await newOrganization();
    const [ann, bob] = await agents(org, 2);
    const settings = await routingSettings(org, {
      rules: [{ id: "hourly", pool: [ann!.id, bob!.id] }],
      agents: [{ userId: ann!.id, hourlyCap: 2 }],
    });
    expect(settings.agents).toEqual([
      { userId: ann!.id, dailyCap: null, hourlyCap: 2, openCap: null, licensedStates: null },
    ]);
    const source = await newSource(org);
    const created = await Promise.all(Array.from({ length: 8 }, () => intakeByQuery(source, { Phone: uniquePhone() })));
    expect(created.every((response) => response.status === 201)).toBe(true);
    expect(tally(await untilRouted(org, 8))).toEqual({ [ann!.id]: 2, [bob!.id]: 6 });
  }, 120_000);

  it("skips a user who is away or outside their working hours (in their time zone), and routes to them again once back", async () => {
    const org = await newOrganization();
    const [ann, bob, cat] = await agents(org, 3);
    await routingSettings(org, { rules: [{ id: "available", pool: [ann!.id, bob!.id, cat!.id] }] });
    const source = await newSource(org);
    const routed = async () =>
      (
        await waitForLead(
          org,
          (await intakeByQuery(source, { Phone: uniquePhone() })).body.id,
          (lead) => lead.assignedUserId || lead.needsAttention,
        )
      ).assignedUserId;

    expect(
      (await org.request("PUT", `/routing/agents/${bob!.id}/away`, { token: ann!.token, body: { away: true } })).status,
    ).toBe(403);
    expect((await org.request("PUT", `/routing/agents/${randomUUID()}/away`, { body: { away: true } })).status).toBe(
      404,
    );
    expect(
      (await org.request("PUT", `/routing/agents/${bob!.id}/away`, { token: bob!.token, body: { away: "yes" } }))
        .status,
    ).toBe(400);
    const away = await org.request("PUT", `/routing/agents/${bob!.id}/away`, {
      token: bob!.token,
      body: { away: true },
    });
    expect(away.status, JSON.stringify(away.body)).toBe(200);
    expect(away.body).toMatchObject({ userId: bob!.id, away: true });
    // Anyone of the organization reads it; a user never marked is available; another organization's user is a 404.
    expect((await org.request("GET", `/routing/agents/${bob!.id}/away`, { token: ann!.token })).body).toEqual(
      away.body,
    );
    expect((await org.request("GET", `/routing/agents/${ann!.id}/away`)).body).toEqual({
      userId: ann!.id,
      away: false,
      modifiedAt: null,
    });
    const stranger = await newOrganization();
    expect((await stranger.request("GET", `/routing/agents/${bob!.id}/away`)).status).toBe(404);
    // Cat works only on the weekday three days from now in Tokyo, so not today there.
    const notToday = new Intl.DateTimeFormat("en-US", { timeZone: "Asia/Tokyo", weekday: "short" }).format(
      new Date(Date.now() + 3 * 86_400_000),
    );
    const hours = await org.request("PUT", "/users/me", {
      token: cat!.token,
      body: { timeZone: "Asia/Tokyo", workingHours: [{ day: notToday, start: "00:00", end: "23:59" }] },
    });
    expect(hours.status, JSON.stringify(hours.body)).toBe(200);

    expect([await routed(), await routed(), await routed()]).toEqual([ann!.id, ann!.id, ann!.id]);
    expect(
      (await org.request("PUT", `/routing/agents/${bob!.id}/away`, { token: org.adminToken, body: { away: false } }))
        .body.away,
    ).toBe(false);
    const today = new Intl.DateTimeFormat("en-US", { timeZone: "Asia/Tokyo", weekday: "short" }).format(new Date());
    const tomorrow = new Intl.DateTimeFormat("en-US", { timeZone: "Asia/Tokyo", weekday: "short" }).format(
      new Date(Date.now() + 86_400_000),
    );
    // Working all of today and tomorrow in Tokyo: available whenever the next leads arrive.
    await org.request("PUT", "/users/me", {
      token: cat!.token,
      body: { workingHours: [today, tomorrow].map((day) => ({ day, start: "00:00", end: "23:59" })) },
    });
    const back = [await routed(), await routed(), await routed()];
    expect(back.sort()).toEqual([ann!.id, bob!.id, cat!.id].sort());

    for (const agent of [ann, bob, cat])
      await org.request("PUT", `/routing/agents/${agent!.id}/away`, { body: { away: true } });
    expect(await routed()).toBeNull();
  }, 120_000);

  it("least recently assigned: gives each lead to the available member routing served longest ago", async () => {
    const org = await newOrganization();
    const [ann, bob, cat] = await agents(org, 3);
    await routingSettings(org, {
      rules: [{ id: "lra", pool: [ann!.id, bob!.id, cat!.id], strategy: "leastRecentlyAssigned" }],
    });
    const source = await newSource(org);
    const routed = async () =>
      (
        await waitForLead(
          org,
          (await intakeByQuery(source, { Phone: uniquePhone() })).body.id,
          (lead) => lead.assignedUserId,
        )
      ).assignedUserId;
    expect([await routed(), await routed(), await routed(), await routed()]).toEqual([
      ann!.id,
      bob!.id,
      cat!.id,
      ann!.id,
    ]);
    await org.request("PUT", `/routing/agents/${bob!.id}/away`, { body: { away: true } });
    expect([await routed(), await routed()]).toEqual([cat!.id, ann!.id]);

    const created = await Promise.all(Array.from({ length: 9 }, () => intakeByQuery(source, { Phone: uniquePhone() })));
    expect(created.every((response) => response.status === 201)).toBe(true);
    const leads = await untilRouted(org, 15);
    expect(leads.every((lead) => lead.assignedBy?.ruleId === "lra")).toBe(true);
  }, 120_000);

  it("splits 200 leads arriving at once exactly 50/50/50/50 across a round-robin pool of 4, each assigned once", async () => {
    const org = await newOrganization();
    const pool = await agents(org, 4);
    await routingSettings(org, { rules: [{ id: "everyone", pool: pool.map((agent) => agent.id) }] });
    const source = await newSource(org);
    const created = await Promise.all(
      Array.from({ length: 200 }, () => intakeByQuery(source, { Phone: uniquePhone() })),
    );
    expect(created.every((response) => response.status === 201)).toBe(true);

    const leads = await untilRouted(org, 200);
    expect(leads.every((lead) => lead.processingStatus === "Processed" && lead.assignedBy?.ruleId === "everyone")).toBe(
      true,
    );
    expect(tally(leads)).toEqual(Object.fromEntries(pool.map((agent) => [agent.id, 50])));

    const assignedEvents = await org.request("POST", "/events/all/my", {
      body: { filters: [{ field: "eventType", value: "LeadAssigned" }], pageSize: 1, includeCount: true },
    });
    expect(assignedEvents.body.totalCount).toBe(200);
  }, 180_000);
});
