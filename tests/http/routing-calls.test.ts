import { describe, expect, it } from "vitest";
import { chain, createAutomation, waitForRun } from "#tests/helpers/automations";
import { callEventsOf, callFrom, forwardCalls, waitForCall } from "#tests/helpers/calls";
import { newSource } from "#tests/helpers/leads";
import { addNumber, magic, randomNumber } from "#tests/helpers/messaging";
import { agents, assign, processedLead } from "#tests/helpers/routing";
import { newOrganization, type TestOrganization } from "#tests/helpers/stack";
import { untilStatus } from "#tests/helpers/team";

/** An organization with a voice number, an agent whose profile phone is `agentPhone`, and a lead assigned to them. */
async function assignedLead(agentPhone: string) {
  const org = await newOrganization();
  const ours = await addNumber(org);
  const [agent] = await agents(org, 1, [agentPhone]);
  const leadPhone = randomNumber("312");
  const lead = await processedLead(org, await newSource(org), { Phone: leadPhone });
  await assign(org, lead.id, agent!.id);
  return { org, ours, agent: agent!, lead, leadPhone };
}

const businessSideOf = async (org: TestOrganization, leadId: string, body: Record<string, unknown> = {}) => {
  const placed = await org.request("POST", "/calls", { body: { leadId, ...body } });
  expect(placed.status, JSON.stringify(placed.body)).toBe(202);
  return placed.body;
};

describe("calls go to the lead's assigned agent", () => {
  it("POST /calls rings the assigned agent's own phone first (the dial target the carrier is given), unless connectTo is named; an away agent's or an unassigned lead's call rings the organization's", async () => {
    // The agent's phone is busy (scenario 21): the carrier's refusal names the number it was asked to ring.
    const agentPhone = magic("21", "646");
    const orgPhone = magic("20", "415");
    const { org, agent, lead, leadPhone } = await assignedLead(agentPhone);
    const settings = await org.request("PUT", "/messaging/settings", {
      body: { outboundCalls: { connectTo: orgPhone } },
    });
    expect(settings.status).toBe(200);

    const toAgent = await businessSideOf(org, lead.id);
    expect(toAgent).toMatchObject({ connectTo: agentPhone, toPhoneNumber: leadPhone });
    expect(await waitForCall(org, toAgent.id)).toMatchObject({
      status: "Busy",
      statusReason: `The business side (${agentPhone}) was not reached: The line was busy.`,
    });

    const named = await businessSideOf(org, lead.id, { connectTo: magic("20", "718") });
    expect(named.connectTo).toBe(magic("20", "718"));

    expect((await org.request("PUT", `/routing/agents/${agent.id}/away`, { body: { away: true } })).status).toBe(200);
    const whileAway = await businessSideOf(org, lead.id);
    expect(whileAway.connectTo).toBe(orgPhone);
    expect((await waitForCall(org, whileAway.id)).status).toBe("Completed");

    await assign(org, lead.id, null);
    expect((await businessSideOf(org, lead.id)).connectTo).toBe(orgPhone);
  });

  it("the PlaceCall automation action without connectTo bridges the lead to the assigned agent's phone", async () => {
    const agentPhone = magic("20", "646");
    const { org, lead } = await assignedLead(agentPhone);
    await org.request("PUT", "/messaging/settings", { body: { outboundCalls: { connectTo: magic("20", "415") } } });
    const automation = await createAutomation(
      org,
      chain({ type: "Manual" }, [{ id: "call", type: "PlaceCall", settings: {} }]),
    );
    const started = await org.request("POST", `/automations/${automation.id}/runs`, { body: { leadId: lead.id } });
    expect(started.status).toBe(202);
    const run = await waitForRun(org, automation.id, started.body.id);
    expect(run.status, JSON.stringify(run.steps)).toBe("Succeeded");
    const callId = run.steps.find((step: any) => step.nodeId === "call" || step.type === "PlaceCall").output.callId;
    expect(await waitForCall(org, callId)).toMatchObject({
      connectTo: agentPhone,
      status: "Completed",
      leadId: lead.id,
    });
  });
});

describe("inbound calls from a lead ring its assigned agent first", () => {
  it("an agent who does not answer is followed by the organization's forwarding number, which takes the call", async () => {
    const agentPhone = magic("22", "646");
    const fallback = magic("20", "415");
    const { org, ours, leadPhone } = await assignedLead(agentPhone);
    await forwardCalls(org, fallback, 20);
    const simulated = await callFrom(leadPhone, ours.phoneNumber);
    expect(simulated.dials.map((dial) => dial.forwardTo)).toEqual([agentPhone, fallback]);
    expect(simulated.dials.map((dial) => dial.timeoutSeconds)).toEqual([20, 20]);
    expect(simulated.dials[0]!.action).toMatch(/[?&]leg=assignee(&|$)/);
    expect(simulated.dials[1]!.action).not.toContain("leg=");
    const [listed] = await callEventsOf(org, encodeURIComponent(leadPhone));
    expect(await waitForCall(org, listed.id)).toMatchObject({
      status: "Completed",
      missed: false,
      forwardedTo: fallback,
      billingStatus: "Charged",
    });
  });

  it("an agent who answers takes the call, and nothing else rings; without a forwarding number an unanswered agent is a missed call", async () => {
    const { org, ours, lead, leadPhone } = await assignedLead(magic("20", "646"));
    await forwardCalls(org, magic("20", "415"));
    const answered = await callFrom(leadPhone, ours.phoneNumber);
    expect(answered.dials.map((dial) => dial.forwardTo)).toEqual([magic("20", "646")]);
    const [first] = await callEventsOf(org, encodeURIComponent(leadPhone));
    expect(await waitForCall(org, first.id)).toMatchObject({ status: "Completed", forwardedTo: magic("20", "646") });

    // Reassigned to an agent who never answers, and nobody behind them.
    const [silent] = await agents(org, 1, [magic("22", "718")]);
    await assign(org, lead.id, silent!.id);
    await forwardCalls(org, null);
    const unanswered = await untilDialed(leadPhone, ours.phoneNumber, magic("22", "718"));
    expect(unanswered.dials.map((dial) => dial.forwardTo)).toEqual([magic("22", "718")]);
    expect(unanswered.dialTwiml).toContain("<Say>Sorry, nobody could take your call.");
  });
});

/** Calls until the first Dial is `target` (a settings change reaches other warm instances within seconds). */
async function untilDialed(from: string, to: string, target: string) {
  let last: Awaited<ReturnType<typeof callFrom>> | undefined;
  await untilStatus(async () => {
    last = await callFrom(from, to);
    return { status: last.dial?.forwardTo === target ? 200 : 0, body: last.dials };
  }, 200);
  return last!;
}
