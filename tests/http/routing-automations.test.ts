import { describe, expect, it } from "vitest";
import { chain, createAutomation, readyToText, smsStep, waitForRun } from "#tests/helpers/automations";
import { newSource } from "#tests/helpers/leads";
import { createLead, randomNumber } from "#tests/helpers/messaging";
import { agents, assign, processedLead, routingSettings } from "#tests/helpers/routing";
import { newOrganization, type TestOrganization } from "#tests/helpers/stack";

const stop = (id: string) => ({ id, type: "Stop" });

/** Manual → group `when` (its one condition) → `then`; Manual → group `otherwise` → `act`. */
function branches(when: Record<string, unknown>, otherwise: Record<string, unknown>, act: Record<string, unknown>) {
  return {
    name: `Assignment ${Math.random().toString(36).slice(2, 8)}`,
    triggers: [{ id: "t", type: "Manual" }],
    conditionGroups: [
      { id: "when", conditions: [{ id: "c-when", ...when }] },
      { id: "otherwise", conditions: [{ id: "c-otherwise", ...otherwise }] },
    ],
    actions: [stop("then"), { id: "act", ...act }],
    connections: [
      { id: "c1", sourceNodeId: "t", targetNodeId: "when" },
      { id: "c2", sourceNodeId: "t", targetNodeId: "otherwise" },
      { id: "c3", sourceNodeId: "when", targetNodeId: "then" },
      { id: "c4", sourceNodeId: "otherwise", targetNodeId: "act" },
    ],
  };
}

async function runOn(org: TestOrganization, automationId: string, leadId: string) {
  const started = await org.request("POST", `/automations/${automationId}/runs`, { body: { leadId } });
  expect(started.status, JSON.stringify(started.body)).toBe(202);
  const run = await waitForRun(org, automationId, started.body.id);
  expect(run.status, JSON.stringify(run.steps)).toBe("Succeeded");
  return run;
}

const actStep = (run: any) => run.steps.find((step: any) => step.nodeId === "act");

describe("automations: AssignLead and the Assignee condition", () => {
  it("AssignLead without a user routes an unassigned lead by the organization's rules; 'is assigned' then takes the other branch", async () => {
    const org = await newOrganization();
    const [ann] = await agents(org, 1);
    const lead = await processedLead(org, await newSource(org));
    expect(lead.assignedUserId).toBeNull();
    await routingSettings(org, { rules: [{ id: "everyone", pool: [ann!.id] }] });
    const automation = await createAutomation(
      org,
      branches(
        { type: "Assignee", operator: "Exists" },
        { type: "Assignee", operator: "NotExists" },
        { type: "AssignLead", settings: {} },
      ),
    );

    const first = await runOn(org, automation.id, lead.id);
    expect(first.path).toEqual(["t", "otherwise", "act"]);
    expect(actStep(first).output).toEqual({ assignedUserId: ann!.id, outcome: "Assigned" });
    const assigned = (await org.request("GET", `/leads/${lead.id}`)).body;
    expect(assigned).toMatchObject({
      assignedUserId: ann!.id,
      assignedBy: { method: "automation", ruleId: "everyone", userId: null },
      needsAttention: false,
    });

    const second = await runOn(org, automation.id, lead.id);
    expect(second.path).toEqual(["t", "when", "then"]);
  });

  it("AssignLead to a named user reassigns the lead; 'assigned to <user>' sees it, and a second run changes nothing", async () => {
    const org = await newOrganization();
    const [ann, bob] = await agents(org, 2);
    const lead = await processedLead(org, await newSource(org));
    await org.request("PUT", `/leads/${lead.id}/assignee`, { body: { userId: ann!.id } });
    const automation = await createAutomation(
      org,
      branches(
        { type: "Assignee", operator: "Equals", settings: { userId: bob!.id } },
        { type: "Assignee", operator: "NotEquals", settings: { userId: bob!.id } },
        { type: "AssignLead", settings: { userId: bob!.id } },
      ),
    );
    const first = await runOn(org, automation.id, lead.id);
    expect(first.path).toEqual(["t", "otherwise", "act"]);
    expect(actStep(first).output).toEqual({ assignedUserId: bob!.id, outcome: "Assigned" });
    expect((await org.request("GET", `/leads/${lead.id}`)).body).toMatchObject({
      assignedUserId: bob!.id,
      assignedBy: { method: "automation", ruleId: null },
    });
    const events = await org.request("POST", "/events/all/my", {
      body: { filters: [{ field: "leadId", value: lead.id }], pageSize: 50 },
    });
    const assignedTo = events.body.items
      .filter((event: any) => event.eventType === "LeadAssigned")
      .map((event: any) => event.relatedEntityId);
    expect(assignedTo.sort()).toEqual([ann!.id, bob!.id].sort());

    expect((await runOn(org, automation.id, lead.id)).path).toEqual(["t", "when", "then"]);
  });

  it("refuses a user of no organization, or a missing one, at the exact pointer (400)", async () => {
    const org = await newOrganization();
    const stranger = "01JNOSUCHUSER0000000000000";
    const unknown = await org.request("POST", "/automations", {
      body: branches(
        { type: "Assignee", operator: "Equals", settings: { userId: stranger } },
        { type: "Assignee", operator: "NotExists" },
        { type: "AssignLead", settings: { userId: stranger } },
      ),
    });
    expect(unknown.status).toBe(400);
    expect(unknown.body.errors.map((error: { pointer: string }) => error.pointer).sort()).toEqual([
      "/actions/1/settings/userId",
      "/conditionGroups/0/conditions/0/settings/userId",
    ]);
    const missing = await org.request("POST", "/automations", {
      body: branches(
        { type: "Assignee", operator: "Equals", settings: {} },
        { type: "Assignee", operator: "Exists", settings: { userId: org.userIds.agent } },
        { type: "AssignLead", settings: { userId: 7 } },
      ),
    });
    expect(missing.status).toBe(400);
    expect(missing.body.errors.map((error: { pointer: string }) => error.pointer)).toEqual(
      expect.arrayContaining([
        "/conditionGroups/0/conditions/0/settings/userId",
        "/conditionGroups/1/conditions/0/settings/userId",
        "/actions/1/settings/userId",
      ]),
    );
  });
});

describe("automations: the assignee in message templates", () => {
  it("SendSms with {{assignedUser.firstName}} texts the assigned agent's first name and phone; for an unassigned lead they are empty", async () => {
    const org = await newOrganization("Acme Roofing");
    await readyToText(org);
    const agentPhone = randomNumber("415");
    const [ann] = await agents(org, 1, [agentPhone]);
    const renamed = await org.request("PUT", "/users/me", { token: ann!.token, body: { name: "Ann Marie Lee" } });
    expect(renamed.status, JSON.stringify(renamed.body)).toBe(200);
    const automation = await createAutomation(
      org,
      chain({ type: "Manual" }, [
        {
          id: "hello",
          type: "SendSms",
          settings: {
            body: "Hi, this is {{assignedUser.firstName}} from {{organization.name}}. Call me at {{assignedUser.phone|our office}}.",
          },
        },
      ]),
    );
    const textOf = async (leadId: string) => {
      const run = await runOn(org, automation.id, leadId);
      const message = await org.request("GET", `/messages/${smsStep(run).output.messageId}`);
      expect(message.status).toBe(200);
      expect(message.body).toMatchObject({ leadId, direction: "Outbound" });
      return message.body.body as string;
    };

    const assigned = await createLead(org, randomNumber("212"));
    await assign(org, assigned.id, ann!.id);
    expect(await textOf(assigned.id)).toBe(`Hi, this is Ann from Acme Roofing. Call me at ${agentPhone}.`);

    const unassigned = await createLead(org, randomNumber("212"));
    expect(await textOf(unassigned.id)).toBe("Hi, this is  from Acme Roofing. Call me at our office.");
  });

  it("refuses an assignedUser field the profile does not have, at the body (400)", async () => {
    const org = await newOrganization();
    const refused = await org.request("POST", "/automations", {
      body: chain({ type: "Manual" }, [
        { id: "hello", type: "SendSms", settings: { body: "Hi, this is {{assignedUser.email}}" } },
      ]),
    });
    expect(refused.status).toBe(400);
    expect(refused.body.errors[0]).toMatchObject({ pointer: "/actions/0/settings/body" });
    expect(refused.body.errors[0].detail).toContain("assignedUser fields are firstName, name, phone");
  });
});
