import { describe, expect, it } from "vitest";
import { addNumber, send, sleep, waitForMessage } from "#tests/helpers/messaging";
import { newSource } from "#tests/helpers/leads";
import { agents, routedLead, routingSettings } from "#tests/helpers/routing";
import { newOrganization, type TestOrganization } from "#tests/helpers/stack";

/** Polls the 3-day report until `done` holds (the stream aggregator counts a moment after the API answers). */
async function reportWhen(org: TestOrganization, done: (report: any) => boolean, timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs;
  let last: any;
  while (Date.now() < deadline) {
    const response = await org.request("GET", "/analytics/my?days=3");
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    last = response.body;
    if (done(last)) return last;
    await sleep(150);
  }
  throw new Error(`analytics never matched; last agents: ${JSON.stringify(last?.agents)}`);
}

/** An organization whose leads of source A go to one agent and of source B to another. */
async function twoAgentOrganization() {
  const org = await newOrganization();
  await addNumber(org);
  const [ann, bob] = await agents(org, 2);
  const forAnn = await newSource(org, { name: "Ann's source" });
  const forBob = await newSource(org, { name: "Bob's source" });
  await routingSettings(org, {
    rules: [
      { id: "ann", conditions: { sourceIds: [forAnn.sourceId] }, pool: [ann!.id] },
      { id: "bob", conditions: { sourceIds: [forBob.sourceId] }, pool: [bob!.id] },
    ],
  });
  return { org, ann: ann!, bob: bob!, forAnn, forBob };
}

async function answer(org: TestOrganization, leadId: string) {
  const sent = await send(org, { leadId, body: "Hi, thanks for your request" });
  expect(sent.status, JSON.stringify(sent.body)).toBe(202);
  await waitForMessage(org, sent.body.id);
}

describe("GET /analytics/my per-agent leaderboard", () => {
  it("counts each agent's leads, responses and missed leads exactly, fastest first, in the JSON and the CSV, and never another organization's agents", async () => {
    const { org, ann, bob, forAnn, forBob } = await twoAgentOrganization();
    const other = await twoAgentOrganization();

    const annLeads = [await routedLead(org, forAnn), await routedLead(org, forAnn)];
    const bobLead = await routedLead(org, forBob);
    expect(annLeads.map((lead) => lead.assignedUserId)).toEqual([ann.id, ann.id]);
    expect(bobLead.assignedUserId).toBe(bob.id);
    const otherLead = await routedLead(other.org, other.forAnn);
    // Ann answers one of her two leads at once; Bob's lead waits (younger than the missed threshold: not missed yet).
    await answer(org, annLeads[0]!.id);
    await answer(other.org, otherLead.id);

    const report = await reportWhen(
      org,
      (r) => r.responseMetrics.respondedLeads === 1 && r.agents.length === 2 && r.agents[0].respondedLeads === 1,
    );
    expect(report.summary.leads).toBe(3);
    expect(report.agents).toEqual([
      {
        userId: ann.id,
        name: "Agent 1",
        leads: 2,
        respondedLeads: 1,
        averageResponseMinutes: expect.any(Number),
        medianResponseMinutes: 0,
        respondedWithinFiveMinutesPercent: 50,
        missedLeads: 0,
      },
      {
        userId: bob.id,
        name: "Agent 2",
        leads: 1,
        respondedLeads: 0,
        averageResponseMinutes: null,
        medianResponseMinutes: null,
        respondedWithinFiveMinutesPercent: 0,
        missedLeads: 0,
      },
    ]);
    expect(report.agents[0].averageResponseMinutes).toBeLessThan(1);

    // The other organization sees only its own agent, with its own lead.
    const theirs = await reportWhen(other.org, (r) => r.agents.length === 1 && r.agents[0].respondedLeads === 1);
    expect(theirs.agents.map((agent: any) => agent.userId)).toEqual([other.ann.id]);
    expect(theirs.agents[0]).toMatchObject({ leads: 1, respondedLeads: 1, medianResponseMinutes: 0 });

    // The CSV ends with the same rows, one per agent, over the whole window.
    const query = new URLSearchParams({ startAt: report.range.startAt, endAt: report.range.endAt });
    const response = await org.request("GET", `/analytics/my/export?${query}`);
    expect(response.status).toBe(200);
    const [header, ...lines] = (response.body as string).trimEnd().split("\r\n");
    const columns = header!.split(",");
    const rows = lines.map((line) => Object.fromEntries(line.split(",").map((cell, i) => [columns[i], cell])));
    const agentRows = rows.filter((row) => row.agentUserId);
    expect(agentRows).toEqual([
      expect.objectContaining({
        startAt: report.range.startAt,
        endAt: report.range.endAt,
        label: "Agent: Agent 1",
        agentUserId: ann.id,
        agentName: "Agent 1",
        leads: "2",
        respondedLeads: "1",
        medianResponseMinutes: "0",
        respondedWithinFiveMinutesPercent: "50",
        missedLeads: "0",
        smsSent: "",
      }),
      expect.objectContaining({
        agentUserId: bob.id,
        leads: "1",
        respondedLeads: "0",
        medianResponseMinutes: "",
        missedLeads: "0",
      }),
    ]);
    // The bucket rows still add up to the window's totals.
    const bucketLeads = rows.filter((row) => !row.agentUserId).reduce((sum, row) => sum + Number(row.leads), 0);
    expect(bucketLeads).toBe(3);
  });
});
