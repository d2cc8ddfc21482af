import { describe, expect, it } from "vitest";
import { ulid } from "ulid";
import * as Leads from "#core/leads/index";
import { leadItem, type Lead } from "#core/leads/index";
import { queueStoredLeads } from "#core/leads/outbox";
import { addNumber, send, sleep, waitForMessage } from "#tests/helpers/messaging";
import { newSource, storeUnqueuedLead, uniquePhone, waitForLead } from "#tests/helpers/leads";
import { agents, routedLead, routingSettings } from "#tests/helpers/routing";
import { applyStackEnv, newOrganization, type TestOrganization } from "#tests/helpers/stack";

const hour = 3600_000;

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

/**
 * A lead created two hours ago (its id's time), like `like` (same source, so the same rule routes it): stored as
 * intake stores it, then queued, so processing and routing handle it now.
 */
async function twoHoursOld(org: TestOrganization, like: Lead): Promise<Lead> {
  applyStackEnv();
  const created = Date.now() - 2 * hour;
  const stored = (await Leads.find(org.organizationId, like.id)) as Lead;
  const old: Lead = {
    ...stored,
    id: ulid(created),
    createdAt: new Date(created).toISOString(),
    processingStatus: "Pending",
    assignedUserId: null,
    assignedAt: null,
    assignedBy: null,
    contact: { ...stored.contact, phone: { number: uniquePhone(), type: null, countryCode: "US" } },
  };
  await storeUnqueuedLead(leadItem(org.organizationId, old));
  await queueStoredLeads([{ organizationId: org.organizationId, id: old.id }]);
  return waitForLead(org, old.id, (lead) => lead.assignedUserId !== null);
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
    // Two leads created two hours ago: Ann's is answered now (120 minutes late: missed), Bob's never (missed).
    const annOld = await twoHoursOld(org, annLeads[0]!);
    const bobOld = await twoHoursOld(org, bobLead);
    expect([annOld.assignedUserId, bobOld.assignedUserId]).toEqual([ann.id, bob.id]);
    const otherLead = await routedLead(other.org, other.forAnn);
    // Ann answers one fresh lead at once and her old one; Bob answers his fresh one. Ann's other fresh lead waits
    // (younger than the missed threshold: not missed yet).
    await answer(org, annLeads[0]!.id);
    await answer(org, annOld.id);
    await answer(org, bobLead.id);
    await answer(other.org, otherLead.id);

    const report = await reportWhen(org, (r) => r.responseMetrics.respondedLeads === 3);
    expect(report.summary).toMatchObject({ leads: 5, missedLeads: 2 });
    // Bob's median (0 minutes) beats Ann's (0 and 120: 60), so Bob leads the board.
    expect(report.agents).toEqual([
      {
        userId: bob.id,
        name: "Agent 2",
        leads: 2,
        respondedLeads: 1,
        averageResponseMinutes: expect.any(Number),
        medianResponseMinutes: 0,
        respondedWithinFiveMinutesPercent: 50,
        missedLeads: 1,
      },
      {
        userId: ann.id,
        name: "Agent 1",
        leads: 3,
        respondedLeads: 2,
        averageResponseMinutes: expect.any(Number),
        medianResponseMinutes: 60,
        respondedWithinFiveMinutesPercent: 33.3,
        missedLeads: 1,
      },
    ]);
    expect(report.agents[0].averageResponseMinutes).toBeLessThan(1);
    expect(report.agents[1].averageResponseMinutes).toBeGreaterThanOrEqual(60);

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
        label: "Agent: Agent 2",
        agentUserId: bob.id,
        agentName: "Agent 2",
        leads: "2",
        respondedLeads: "1",
        medianResponseMinutes: "0",
        respondedWithinFiveMinutesPercent: "50",
        missedLeads: "1",
        smsSent: "",
      }),
      expect.objectContaining({
        agentUserId: ann.id,
        leads: "3",
        respondedLeads: "2",
        medianResponseMinutes: "60",
        missedLeads: "1",
      }),
    ]);
    // The bucket rows still add up to the window's totals.
    const bucketLeads = rows.filter((row) => !row.agentUserId).reduce((sum, row) => sum + Number(row.leads), 0);
    expect(bucketLeads).toBe(5);
  });
});
