import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import * as Users from "#core/users/index";
import { newSource, uniquePhone } from "#tests/helpers/leads";
import { randomNumber } from "#tests/helpers/messaging";
import { agents, routedLead, routingSettings } from "#tests/helpers/routing";
import { newOrganization, type TestOrganization } from "#tests/helpers/stack";

async function assignmentDescription(org: TestOrganization, leadId: string): Promise<string | undefined> {
  const response = await org.request("POST", "/events/all/my", {
    body: { filters: [{ field: "leadId", value: leadId }], pageSize: 50 },
  });
  expect(response.status).toBe(200);
  return response.body.items.find((event: { eventType: string }) => event.eventType === "LeadAssigned")?.description;
}

async function setAway(org: TestOrganization, userId: string, away: boolean) {
  const response = await org.request("PUT", `/routing/agents/${userId}/away`, { body: { away } });
  expect(response.status, JSON.stringify(response.body)).toBe(200);
}

describe("routing conditions: price, UTM, the state from the phone's area code", () => {
  it("sends each lead to the rule its price, UTM values or area-code state match, and passes over the leads they do not", async () => {
    const org = await newOrganization();
    const [ann, bob, cat, dan] = await agents(org, 4);
    const source = await newSource(org);
    const settings = await routingSettings(org, {
      rules: [
        { id: "premium", conditions: { price: { min: "40", max: 100 } }, pool: [ann!.id] },
        { id: "paid-search", conditions: { utmSources: ["google"], utmMediums: ["cpc"] }, pool: [bob!.id] },
        { id: "spring", conditions: { utmCampaigns: ["Spring-Sale"] }, pool: [bob!.id] },
        { id: "florida", conditions: { states: ["FL"] }, pool: [cat!.id] },
        { id: "everyone-else", pool: [dan!.id] },
      ],
    });
    expect(settings.rules.map((rule: { conditions: unknown }) => rule.conditions)).toEqual([
      { price: { min: "40", max: "100" } },
      { utmSources: ["google"], utmMediums: ["cpc"] },
      { utmCampaigns: ["Spring-Sale"] },
      { states: ["FL"] },
      {},
    ]);
    expect((await org.request("GET", "/routing/settings")).body.rules[0].conditions.price).toEqual({
      min: "40",
      max: "100",
    });
    // uniquePhone() is a +1 201 (New Jersey) number: no Florida lead unless its address or area code says so.
    const assignee = async (params: Record<string, string>) =>
      (await routedLead(org, source, { Phone: uniquePhone(), ...params })).assignedUserId;

    expect(await assignee({ Price: "40.00" })).toBe(ann!.id);
    expect(await assignee({ Price: "100" })).toBe(ann!.id);
    expect(await assignee({ Price: "39.99" })).toBe(dan!.id);
    expect(await assignee({ Price: "100.01" })).toBe(dan!.id);
    expect(await assignee({})).toBe(dan!.id);

    expect(await assignee({ UtmSource: "Google", UtmMedium: "CPC" })).toBe(bob!.id);
    expect(await assignee({ UtmSource: "google", UtmMedium: "email" })).toBe(dan!.id);
    expect(await assignee({ UtmSource: "bing", UtmCampaign: "spring-sale" })).toBe(bob!.id);

    expect(await assignee({ Phone: randomNumber("305") })).toBe(cat!.id);
    expect(await assignee({ Phone: randomNumber("305"), State: "GA" })).toBe(dan!.id);
    expect(await assignee({ State: "FL" })).toBe(cat!.id);
  }, 120_000);

  it("refuses a bad condition with a 400 that names the field", async () => {
    const org = await newOrganization();
    const refused = await org.request("PUT", "/routing/settings", {
      body: {
        rules: [
          { conditions: { price: { min: "30", max: "20" } }, pool: [org.userIds.agent] },
          { conditions: { price: { min: "ten dollars" } }, pool: [org.userIds.agent] },
          { conditions: { price: {} }, pool: [org.userIds.agent] },
          { conditions: { utmSources: [] }, pool: [org.userIds.agent] },
          { conditions: { utmMedium: ["cpc"] }, pool: [org.userIds.agent] },
        ],
        fallback: "someone",
      },
    });
    expect(refused.status).toBe(400);
    expect(refused.headers.get("content-type")).toContain("application/problem+json");
    const pointers = refused.body.errors.map((error: { pointer: string }) => error.pointer);
    expect(pointers).toEqual(
      expect.arrayContaining([
        "/rules/0/conditions/price/max",
        "/rules/1/conditions/price/min",
        "/rules/2/conditions/price",
        "/rules/3/conditions/utmSources",
        "/rules/4/conditions/utmMedium",
        "/fallback",
      ]),
    );
    expect(refused.body.errors.find((error: any) => error.pointer === "/rules/0/conditions/price/max").detail).toBe(
      "max must not be below min.",
    );
    expect((await org.request("GET", "/routing/settings")).body.rules).toEqual([]);
  });
});

describe("routing fallback: a lead nobody can take", () => {
  it("goes to the first active owner not away (saying so in the assignment) with fallback owner; stays flagged without", async () => {
    const org = await newOrganization();
    const [ann] = await agents(org, 1);
    // A second owner, who joined after the organization's first one.
    const later = await Users.add(org.organizationId, {
      email: `owner-${randomUUID()}@example.com`,
      name: "Second Owner",
      role: "owner",
    });
    const source = await newSource(org);
    const settings = await routingSettings(org, {
      rules: [{ id: "florida", conditions: { states: ["FL"] }, pool: [ann!.id] }],
      fallback: "owner",
    });
    expect(settings.fallback).toBe("owner");

    const unmatched = await routedLead(org, source, { State: "TX" });
    expect(unmatched).toMatchObject({
      assignedUserId: org.userIds.owner,
      assignedBy: { method: "fallback", ruleId: null, userId: null },
      needsAttention: false,
    });
    expect(await assignmentDescription(org, unmatched.id)).toContain(
      "by the routing fallback to an owner (no routing rule matched)",
    );

    await setAway(org, ann!.id, true);
    const nobodyInPool = await routedLead(org, source, { State: "FL" });
    expect(nobodyInPool).toMatchObject({
      assignedUserId: org.userIds.owner,
      assignedBy: { method: "fallback", ruleId: "florida", userId: null },
      needsAttention: false,
    });
    expect(await assignmentDescription(org, nobodyInPool.id)).toContain(
      "by the routing fallback to an owner (nobody in rule florida's pool could take it)",
    );

    // The first owner away: the next one by joining date; a deactivated or away owner is never the fallback.
    await setAway(org, org.userIds.owner, true);
    expect((await routedLead(org, source, { State: "TX" })).assignedUserId).toBe(later.id);
    await setAway(org, later.id, true);
    const everyOwnerAway = await routedLead(org, source, { State: "TX" });
    expect(everyOwnerAway).toMatchObject({ assignedUserId: null, needsAttention: true });

    await setAway(org, org.userIds.owner, false);
    await routingSettings(org, { rules: settings.rules });
    expect((await org.request("GET", "/routing/settings")).body.fallback).toBe("unassigned");
    const flagged = await routedLead(org, source, { State: "TX" });
    expect(flagged).toMatchObject({ assignedUserId: null, assignedBy: null, needsAttention: true });
  }, 120_000);
});
