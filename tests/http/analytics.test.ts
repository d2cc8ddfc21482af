import { describe, expect, it } from "vitest";
import { backfill } from "#core/analytics/backfill";
import { toUnits } from "#core/analytics/counters";
import * as Analytics from "#core/analytics/index";
import { floorWeek, hourBucket } from "#core/analytics/range";
import { rollupUpdate } from "#core/analytics/rollups";
import { table } from "#core/db/items";
import type { Key } from "#core/db/keys";
import { AnalyticsCountedEntity, AnalyticsCountedSetEntity, AnalyticsRollupEntity } from "#core/db/entities/analytics";
import { toEventRecord } from "#core/events/index";
import { decodeTime, ulid } from "ulid";
import { systemActor } from "#core/auth/actor";
import * as Leads from "#core/leads/index";
import { leadItem, type Lead } from "#core/leads/index";
import { queueStoredLeads } from "#core/leads/outbox";
import {
  addNumber,
  createLead,
  events,
  randomNumber,
  send,
  sleep,
  textFrom,
  waitForMessage,
} from "#tests/helpers/messaging";
import {
  intakeByBody,
  newSource,
  storeUnqueuedLead,
  uniquePhone,
  waitForLead,
  type TestSource,
} from "#tests/helpers/leads";
import { applyStackEnv, newOrganization, type TestOrganization } from "#tests/helpers/stack";

const hour = 3600_000;
const day = 24 * hour;
const iso = (t: number) => new Date(t).toISOString();

async function analytics(org: TestOrganization, query: Record<string, string> = {}) {
  const search = new URLSearchParams(query).toString();
  return org.request("GET", `/analytics/my${search ? `?${search}` : ""}`);
}

async function sourcedLead(org: TestOrganization, source: TestSource, phone = uniquePhone()) {
  const response = await intakeByBody(source, { FirstName: "Sam", Phone: phone });
  if (response.status >= 300) throw new Error(`intake: ${response.status} ${JSON.stringify(response.body)}`);
  return waitForLead(org, response.body.id);
}

/** Polls the report until `done` holds (the stream aggregator counts events a moment after the API answers). */
async function reportWhen(
  org: TestOrganization,
  query: Record<string, string>,
  done: (report: any) => boolean,
  timeoutMs = 15_000,
) {
  const deadline = Date.now() + timeoutMs;
  let last: any;
  while (Date.now() < deadline) {
    const response = await analytics(org, query);
    expect(response.status).toBe(200);
    last = response.body;
    if (done(last)) return last;
    await sleep(150);
  }
  throw new Error(`analytics never matched; last: ${JSON.stringify(last?.summary)}`);
}

/** A window that contains everything created so far in this test: whole hours, so the hour rollups answer. */
function wholeHours(from: number) {
  const start = Math.floor(from / hour) * hour;
  return { startAt: iso(start), endAt: iso(Math.floor(Date.now() / hour) * hour + 2 * hour) };
}

describe("GET /analytics/my from real data", () => {
  it("reports leads, sources, responses, messaging, spend, unread messages and activation from what the API did", async () => {
    const began = Date.now();
    const org = await newOrganization();
    const number = await addNumber(org);
    const source = await newSource(org, { name: "Quotes R Us", defaultPrice: "12.50" });
    const answered = await sourcedLead(org, source);
    const waiting = await sourcedLead(org, source);
    const direct = await createLead(org, uniquePhone());
    await waitForLead(org, direct.id);

    const message = await waitForMessage(
      org,
      (await send(org, { leadId: answered.id, body: "Hi Sam, here is your quote." })).body.id,
    );
    expect(message.status).toBe("Delivered");
    await textFrom(waiting.contact.phone.number, number.phoneNumber, "Call me tomorrow?");

    // The stream aggregator counts each event in its own batch: wait for all of them, the delivery milestone included.
    const delivered = (r: any) =>
      r.activationHealth.items.some((item: any) => item.key === "messageDelivered" && item.status === "Complete");
    const report = await reportWhen(
      org,
      {},
      (r) =>
        r.summary.smsSent === 1 && r.summary.smsReceived === 1 && r.summary.usageSpend !== "0.0000" && delivered(r),
    );
    const seconds = Math.floor(
      (Date.parse(message.sentAt ?? message.sendingStartedAt) - Date.parse(answered.createdAt)) / 1000,
    );
    const minutes = Math.round((seconds / 60) * 100) / 100;

    expect(report.summary).toMatchObject({
      leads: 3,
      leadsComparison: { current: 3, previous: 0, changePercent: null, direction: "up" },
      averageResponseMinutes: minutes,
      medianResponseMinutes: Math.floor(seconds / 60),
      respondedWithinFiveMinutesPercent: 33.3,
      missedLeads: 0,
      unreadMessages: 1,
      smsSent: 1,
      smsReceived: 1,
      callsPlaced: 0,
      usageSpend: Number(message.billableAmount).toFixed(4),
      walletStatus: "Active",
      billingStatus: "Good",
    });
    expect(report.responseMetrics).toMatchObject({ respondedLeads: 1, unrespondedLeads: 2, unreadMessages: 1 });
    expect(report.communicationUsage).toMatchObject({
      smsSent: 1,
      smsReceived: 1,
      failedOrBlockedSms: 0,
      answeredCalls: 0,
      callSeconds: 0,
    });
    expect(report.leadSources).toEqual([
      {
        source: "Quotes R Us",
        sourceId: source.sourceId,
        leads: 2,
        percent: 66.7,
        performance: {
          respondedLeads: 1,
          medianResponseMinutes: Math.floor(seconds / 60),
          leadSpend: "25.0000",
          spendPerRespondedLead: "25.0000",
        },
      },
      {
        source: "Direct",
        sourceId: null,
        leads: 1,
        percent: 33.3,
        performance: {
          respondedLeads: 0,
          medianResponseMinutes: null,
          leadSpend: "0.0000",
          spendPerRespondedLead: null,
        },
      },
    ]);
    const activation = Object.fromEntries(report.activationHealth.items.map((item: any) => [item.key, item.status]));
    expect(activation).toEqual({
      leadSource: "Complete",
      phoneNumber: "Complete",
      wallet: "Complete",
      automation: "Incomplete",
      messageDelivered: "Complete",
    });
    expect(report.activationHealth.overallStatus).toBe("Incomplete");
    expect(report.automationHealth).toMatchObject({
      automationCount: 0,
      enabledCount: 0,
      executions: 0,
      lastFailure: null,
      failingAutomations: [],
    });
    expect(report.range.endAt <= report.generatedAt).toBe(true);

    // The same figures from the hour rollups (a window of whole hours) as from the exact edge records. The rollups are
    // the stream aggregator's, which may count the last events a moment after the edge records were read: wait for them.
    const fromRollups = await reportWhen(
      org,
      wholeHours(began),
      (r) => r.summary.smsSent === 1 && r.summary.smsReceived === 1,
    );
    expect(fromRollups.summary).toMatchObject({
      leads: 3,
      smsSent: 1,
      smsReceived: 1,
      usageSpend: report.summary.usageSpend,
      averageResponseMinutes: minutes,
    });
    expect(fromRollups.leadSources).toEqual(report.leadSources);
  });

  it("reads whole days from the day rollups, with daily points", async () => {
    const org = await newOrganization();
    await createLead(org, uniquePhone());
    await createLead(org, uniquePhone());
    const today = Math.floor(Date.now() / day) * day;
    const query = { startAt: iso(today - 2 * day), endAt: iso(today + day) };
    const report = await reportWhen(org, query, (r) => r.summary.leads === 2);
    expect(report.leadTrend.granularity).toBe("Day");
    expect(report.leadTrend.points.map((point: any) => point.value)).toEqual([0, 0, 2]);
    expect(report.leadTrend.points.at(-1)).toMatchObject({
      label: iso(today).slice(0, 10),
      startAt: iso(today),
      endAt: iso(today + day),
    });
  });

  it("reads whole ISO weeks from the week rollups, with weekly points", async () => {
    const org = await newOrganization();
    await createLead(org, uniquePhone());
    const monday = floorWeek(Date.now());
    const query = { startAt: iso(monday - 14 * 7 * day), endAt: iso(monday + 7 * day) };
    const report = await reportWhen(org, query, (r) => r.summary.leads === 1);
    expect(report.leadTrend.granularity).toBe("Week");
    expect(report.leadTrend.points).toHaveLength(15);
    expect(report.leadTrend.points.at(-1)).toMatchObject({ label: `Week of ${iso(monday).slice(0, 10)}`, value: 1 });
  });

  it("backfilling the same events gives the same figures as counting them live (the benchmark's seeding path)", async () => {
    const org = await newOrganization();
    const copy = await newOrganization();
    await addNumber(org);
    const source = await newSource(org, { defaultPrice: "3.25" });
    const leads = [
      await sourcedLead(org, source),
      await sourcedLead(org, source),
      await waitForLead(org, (await createLead(org, uniquePhone())).id),
    ];
    const messages = [];
    for (const lead of leads.slice(0, 2))
      messages.push(await waitForMessage(org, (await send(org, { leadId: lead.id, body: "Hello" })).body.id));
    // Every figure counted live before the copy is compared: both charges too (each Delivered event is counted in its own batch).
    const spend = (
      messages.reduce((sum, message) => sum + Math.round(Number(message.billableAmount) * 10_000), 0) / 10_000
    ).toFixed(4);
    const live = await reportWhen(
      org,
      {},
      (r) => r.summary.smsSent === 2 && r.responseMetrics.respondedLeads === 2 && r.summary.usageSpend === spend,
    );

    applyStackEnv();
    const byId = new Map(
      leads.map((lead) => [lead.id, { sourceId: lead.sourceId, priceUnits: toUnits(lead.metadata.price) }]),
    );
    await backfill(copy.organizationId, await events(org), {
      lead: (leadId) => byId.get(leadId),
      callSeconds: () => 0,
    });
    const figures = (r: any) => ({
      ...r.summary,
      unreadMessages: 0,
      walletBalance: null,
      leadSources: r.leadSources.map((entry: any) => ({ ...entry, source: null })),
      trend: r.communicationUsage.trend,
      points: r.leadTrend.points,
    });
    // Ranges of whole hours, days and weeks: read from the rollups alone (the copy has no event records for exact edges).
    const today = Math.floor(Date.now() / day) * day;
    const monday = floorWeek(Date.now());
    for (const range of [
      wholeHours(Date.parse(live.range.endAt) - hour),
      { startAt: iso(today - 2 * day), endAt: iso(today + day) },
      { startAt: iso(monday - 14 * 7 * day), endAt: iso(monday + 7 * day) },
    ]) {
      const expected = figures((await analytics(org, range)).body);
      expect(expected.smsSent).toBe(2);
      expect(figures((await analytics(copy, range)).body)).toEqual(expected);
    }
  });

  it("counts a response sent while the lead was still being processed once the lead is counted, live and by backfill alike", async () => {
    const org = await newOrganization();
    await addNumber(org);
    applyStackEnv();
    // A lead stored as intake stores it, but held Pending: the intake outbox does not queue it until the test does.
    const template = (
      await Leads.intake(
        systemActor(org.organizationId),
        { contact: { email: `early-${ulid()}@example.com` } },
        { channel: "Api" },
      )
    ).lead;
    await waitForLead(org, template.id);
    const held: Lead = {
      ...template,
      id: ulid(),
      createdAt: new Date().toISOString(),
      processingStatus: "Pending",
      contact: { ...template.contact, email: null, phone: { number: uniquePhone(), type: null, countryCode: "US" } },
    };
    await storeUnqueuedLead(leadItem(org.organizationId, held));

    const message = await waitForMessage(
      org,
      (await send(org, { leadId: held.id, body: "Thanks, calling you in a minute" })).body.id,
    );
    expect(message.status).toBe("Delivered");
    // The send is counted (and its response kept) while the lead is not: a Pending lead is no lead of the report yet.
    const before = await reportWhen(
      org,
      {},
      (r) => r.summary.smsSent === 1 && r.summary.usageSpend === Number(message.billableAmount).toFixed(4),
    );
    expect(before.summary.leads).toBe(1);
    expect(before.responseMetrics.respondedLeads).toBe(0);

    await queueStoredLeads([{ organizationId: org.organizationId, id: held.id }]);
    expect((await waitForLead(org, held.id)).processingStatus).toBe("Processed");
    const after = await reportWhen(org, {}, (r) => r.summary.leads === 2 && r.responseMetrics.respondedLeads === 1);
    const seconds = Math.floor((Date.parse(message.sentAt ?? message.sendingStartedAt) - decodeTime(held.id)) / 1000);
    expect(after.summary).toMatchObject({
      averageResponseMinutes: Math.round((seconds / 60) * 100) / 100,
      respondedWithinFiveMinutesPercent: 50,
    });

    // Backfill reads the same events in time order, where the response comes before its LeadCreated: the same figures.
    const copy = await newOrganization();
    const byId = new Map([template, held].map((lead) => [lead.id, { sourceId: null, priceUnits: 0 }]));
    await backfill(copy.organizationId, await events(org), {
      lead: (leadId) => byId.get(leadId),
      callSeconds: () => 0,
    });
    const range = wholeHours(Date.parse(after.range.endAt) - hour);
    const responses = (r: any) => ({ ...r.responseMetrics, unreadMessages: 0 });
    expect(responses((await analytics(copy, range)).body)).toEqual(responses((await analytics(org, range)).body));
  });

  it("compares with the previous period of the same length", async () => {
    const org = await newOrganization();
    const first = await createLead(org, uniquePhone());
    await waitForLead(org, first.id);
    // Windows resolve to whole seconds (docs/analytics.md): the middle starts a second after the first lead's.
    await sleep(1050 - (Date.now() % 1000));
    const middle = Date.now();
    for (const lead of [await createLead(org, uniquePhone()), await createLead(org, uniquePhone())])
      await waitForLead(org, lead.id);
    const span = Math.max(Date.now() - middle + 1000, middle - Date.parse((first as any).createdAt) + 1000);
    const query = { startAt: iso(middle), endAt: iso(middle + span) };
    const report = await reportWhen(org, query, (r) => r.summary.leads === 2);
    expect(report.summary.leadsComparison).toEqual({ current: 2, previous: 1, changePercent: 100, direction: "up" });
    expect(report.leadTrend.comparison).toEqual(report.summary.leadsComparison);
    const before = await analytics(org, { startAt: iso(middle - span), endAt: iso(middle) });
    expect(before.body.summary.leadsComparison).toEqual({
      current: 1,
      previous: 0,
      changePercent: null,
      direction: "up",
    });
  });

  it("counts a redelivered event once, and only a lead's first response", async () => {
    const org = await newOrganization();
    await addNumber(org);
    const lead = await createLead(org, uniquePhone());
    await waitForLead(org, lead.id);
    for (const body of ["First", "Second"])
      await waitForMessage(org, (await send(org, { leadId: lead.id, body })).body.id);
    const before = await reportWhen(org, {}, (r) => r.summary.smsSent === 2 && r.responseMetrics.respondedLeads === 1);

    applyStackEnv();
    const recorded = await events(org);
    expect(recorded.map((event) => event.eventType)).toContain("LeadCreated");
    // Replayed twice as the stream aggregator would receive them again: once as one batch, then event by event.
    const replay = recorded.map((event) => ({ organizationId: org.organizationId, event }));
    await Analytics.countRecordedEvents(replay);
    for (const one of replay) await Analytics.countRecordedEvents([one]);

    const after = (await analytics(org, { startAt: before.range.startAt, endAt: before.range.endAt })).body;
    expect(after.summary).toMatchObject({
      leads: 1,
      smsSent: 2,
      usageSpend: before.summary.usageSpend,
      averageResponseMinutes: before.summary.averageResponseMinutes,
    });
    expect(after.responseMetrics.respondedLeads).toBe(1);
    const rollups = (await analytics(org, wholeHours(Date.parse(before.range.endAt) - hour))).body;
    expect(rollups.summary).toMatchObject({ leads: 1, smsSent: 2 });
  });

  it("counts a lead answered within the batch that counts it with its first response, once however the batch is replayed", async () => {
    const org = await newOrganization();
    const template = await createLead(org, uniquePhone());
    await waitForLead(org, template.id);
    applyStackEnv();
    // Stored processed with no event of its own: only the batch below counts it.
    const stored = (await Leads.find(org.organizationId, template.id)) as Lead;
    // The template lead is counted by the stack whenever its event arrives, so the window ends before it.
    const templateAt = Date.parse(stored.createdAt);
    const createdAt = templateAt - 3 * 60_000;
    const lead: Lead = {
      ...stored,
      id: ulid(createdAt),
      createdAt: iso(createdAt),
      contact: { ...stored.contact, phone: { number: uniquePhone(), type: null, countryCode: "US" } },
    };
    await storeUnqueuedLead(leadItem(org.organizationId, lead));
    const batch = [
      { id: ulid(createdAt + 1000), eventType: "LeadCreated", eventCategory: "Lead", leadId: lead.id },
      {
        id: ulid(createdAt + 2 * 60_000),
        eventType: "MessageSent",
        eventCategory: "Message",
        direction: "Outbound",
        leadId: lead.id,
        sentAt: iso(createdAt + 2 * 60_000),
      },
    ].map((event) => ({
      organizationId: org.organizationId,
      event: toEventRecord({ ...event, createdAt: iso(decodeTime(event.id)) }),
    }));
    const window = { startAt: iso(createdAt - 60_000), endAt: iso(templateAt - 1) };
    const before = (await analytics(org, window)).body;

    await Analytics.countRecordedEvents(batch);
    await Analytics.countRecordedEvents(batch);
    for (const one of batch) await Analytics.countRecordedEvents([one]);

    const after = (await analytics(org, window)).body;
    expect(after.summary.leads - before.summary.leads).toBe(1);
    expect(after.summary.smsSent - before.summary.smsSent).toBe(1);
    expect(after.responseMetrics.respondedLeads - before.responseMetrics.respondedLeads).toBe(1);
    const rollups = (await analytics(org, wholeHours(createdAt))).body;
    expect(rollups.responseMetrics.respondedLeads).toBeGreaterThanOrEqual(1);
  });

  it("shows unread messages and waiting leads in needsAttention, and a read conversation leaves the count", async () => {
    const org = await newOrganization();
    const number = await addNumber(org);
    const phone = randomNumber();
    await createLead(org, phone);
    await textFrom(phone, number.phoneNumber, "Hello?");
    await textFrom(phone, number.phoneNumber, "Anyone there?");
    const report = await reportWhen(org, {}, (r) => r.summary.unreadMessages === 2);
    expect(report.needsAttention.map((item: any) => item.title)).not.toContain("Wallet balance low");
    const conversations = (await org.request("POST", "/conversations/all/my", { body: {} })).body.items;
    await org.request("POST", `/conversations/${conversations[0].id}/read`);
    expect((await analytics(org)).body.summary.unreadMessages).toBe(0);
  });

  it("counts a batch larger than one transaction exactly once, split across transactions (the aggregator's batches of up to 100 records)", async () => {
    const org = await newOrganization();
    applyStackEnv();
    const at = Date.now();
    const received = inboundMessages(org.organizationId, at, 150, 1);
    await Analytics.countRecordedEvents(received);
    await Analytics.countRecordedEvents(received.slice(40, 140));
    // Hour rollups only (the organization has no event records for exact edges): the figure is what the aggregator wrote.
    const report = (await analytics(org, wholeHours(at))).body;
    expect(report.summary.smsReceived).toBe(150);
  });

  it("counts each event once when batches overlap, at once or one after another", async () => {
    const org = await newOrganization();
    applyStackEnv();
    const at = Date.now();
    const received = inboundMessages(org.organizationId, at, 60, 40);
    await Analytics.countRecordedEvents(received.slice(0, 10));
    // Two batches at once, both holding events counted before and events the other one holds.
    await Promise.all([
      Analytics.countRecordedEvents(received.slice(5, 40)),
      Analytics.countRecordedEvents(received.slice(20, 60)),
    ]);
    await Analytics.countRecordedEvents([...received].reverse());
    const report = (await analytics(org, wholeHours(at))).body;
    expect(report.summary.smsReceived).toBe(60);
  });

  it("counts a message's events once under their shared marker, whichever of them a batch holds again", async () => {
    const org = await newOrganization();
    applyStackEnv();
    const at = Date.now();
    const price = "0.0075";
    const messageEvents = (messageId: string, offset: number) =>
      ["MessageSent", "MessageDelivered"].map((eventType, index) => ({
        organizationId: org.organizationId,
        event: toEventRecord({
          id: ulid(at + offset + index),
          eventType,
          eventCategory: "Sms",
          direction: "Outbound",
          relatedEntityType: "Message",
          relatedEntityId: messageId,
          sentAt: iso(at + offset),
          createdAt: iso(at + offset + index),
          ...(eventType === "MessageDelivered" ? { billingStatus: "Charged", billableAmount: price } : {}),
        }),
      }));
    const [sent, delivered] = messageEvents(ulid(at), 0);
    const [otherSent, otherDelivered] = messageEvents(ulid(at + 10), 10);
    await Analytics.countRecordedEvents([sent!]);
    // The message's Sent counted and its Delivered not: only the Delivered is added.
    await Analytics.countRecordedEvents([sent!, delivered!]);
    // Two batches at once, each with an event of the other message the other holds too.
    await Promise.all([
      Analytics.countRecordedEvents([otherSent!, otherDelivered!]),
      Analytics.countRecordedEvents([otherDelivered!, sent!]),
    ]);
    await Analytics.countRecordedEvents([otherDelivered!, delivered!, sent!, otherSent!]);
    const report = (await analytics(org, wholeHours(at))).body;
    expect(report.summary.smsSent).toBe(2);
    expect(toUnits(report.summary.usageSpend)).toBe(2 * toUnits(price));
  });

  it("keeps counting an organization's earlier events under a marker each until its shared markers begin", async () => {
    applyStackEnv();
    // An organization of its own that nothing else counts for, counted before this version (an hour item exists):
    // its shared markers begin ten minutes ahead.
    const organizationId = `org_${ulid()}`;
    const at = Date.now();
    const hourKey = AnalyticsRollupEntity.key({ organizationId, level: "H", bucket: hourBucket(at) });
    await table.update(rollupUpdate(organizationId, "H", hourBucket(at), {}).Update!);
    const messageId = ulid(at);
    const recorded = {
      organizationId,
      event: toEventRecord({
        id: ulid(at),
        eventType: "MessageSent",
        eventCategory: "Sms",
        direction: "Outbound",
        relatedEntityType: "Message",
        relatedEntityId: messageId,
        sentAt: iso(at),
        createdAt: iso(at),
      }),
    };
    await Analytics.countRecordedEvents([recorded]);
    const stored = (key: Key) => table.get({ Key: key, ConsistentRead: true }).then(({ Item }) => Item);
    // As the version before counted it: a marker of its own, which a redelivery finds.
    expect(await stored(AnalyticsCountedEntity.key({ organizationId, eventId: recorded.event.id }))).toBeDefined();
    expect(
      await stored(AnalyticsCountedSetEntity.key({ organizationId, subject: `Message#${messageId}` })),
    ).toBeUndefined();
    await Analytics.countRecordedEvents([recorded]);
    expect((await stored(hourKey))?.smsSent).toBe(1);
  });

  it("keeps organizations apart", async () => {
    const org = await newOrganization();
    const other = await newOrganization();
    await createLead(org, uniquePhone());
    await reportWhen(org, {}, (r) => r.summary.leads === 1);
    const report = (await analytics(other)).body;
    expect(report.summary).toMatchObject({ leads: 0, smsSent: 0, unreadMessages: 0, usageSpend: "0.0000" });
    expect(report.leadSources).toEqual([]);
  });
});

/** `count` recorded MessageReceived events from `at`, `stepMs` apart, as the stream aggregator receives them. */
function inboundMessages(organizationId: string, at: number, count: number, stepMs: number) {
  return Array.from({ length: count }, (_, index) => ({
    organizationId,
    event: toEventRecord({
      id: ulid(at + index * stepMs),
      eventType: "MessageReceived",
      eventCategory: "Message",
      direction: "Inbound",
      createdAt: iso(at + index * stepMs),
    }),
  }));
}

describe("analytics windows and trend buckets", () => {
  it("answers hourly points up to 2 days, daily up to 90, weekly beyond, each labelled", async () => {
    const org = await newOrganization();
    const endAt = "2026-03-10T00:00:00.000Z";
    const shapes: [string, string, number, RegExp][] = [
      ["1", "Hour", 24, /^2026-03-09 00:00$/],
      ["2", "Hour", 48, /^2026-03-08 00:00$/],
      ["3", "Day", 3, /^2026-03-07$/],
      ["90", "Day", 90, /^2025-12-10$/],
      ["91", "Week", 14, /^Week of 2025-12-08$/],
      ["365", "Week", 53, /^Week of 2025-03-10$/],
    ];
    for (const [days, granularity, count, firstLabel] of shapes) {
      const report = (await analytics(org, { days, endAt })).body;
      expect(report.leadTrend.granularity).toBe(granularity);
      expect(report.leadTrend.points).toHaveLength(count);
      expect(report.leadTrend.points[0].label).toMatch(firstLabel);
      expect(report.leadTrend.points[0].startAt).toBe(report.range.startAt);
      expect(report.leadTrend.points.at(-1).endAt).toBe(endAt);
      expect(report.responseMetrics.averageMinutesTrend).toHaveLength(count);
      expect(report.communicationUsage.trend).toHaveLength(count);
    }
  });

  it("refuses bad windows with 400 problems", async () => {
    const org = await newOrganization();
    const bad: Record<string, string>[] = [
      { days: "0" },
      { days: "366" },
      { days: "abc" },
      { days: "1.5" },
      { startAt: "2026-01-01T00:00:00Z", days: "3" },
      { startAt: "2026-01-02T00:00:00Z", endAt: "2026-01-01T00:00:00Z" },
      { startAt: "2026-01-01T00:00:00Z", endAt: "2026-01-01T00:00:00Z" },
      { startAt: "2026-02-30T00:00:00Z" },
      { endAt: "yesterday" },
      { startAt: "2024-01-01T00:00:00Z", endAt: "2026-01-01T00:00:00Z" },
    ];
    for (const query of bad) {
      for (const path of ["/analytics/my", "/analytics/my/export"]) {
        const response = await org.request("GET", `${path}?${new URLSearchParams(query)}`);
        expect(response.status, `${path} ${JSON.stringify(query)}`).toBe(400);
        expect(response.headers.get("content-type")).toMatch(/application\/problem\+json/);
      }
    }
  });

  it("needs credentials and the analytics:read permission", async () => {
    const org = await newOrganization();
    expect((await org.request("GET", "/analytics/my", { token: null })).status).toBe(401);
    expect((await org.request("GET", "/analytics/my", { token: org.memberToken })).status).toBe(200);
    expect((await org.request("GET", "/analytics/my/export", { token: null })).status).toBe(401);
  });
});

describe("GET /analytics/my/export", () => {
  it("answers RFC 4180 CSV, one row per trend bucket, whose totals equal the JSON totals for the same range", async () => {
    const org = await newOrganization();
    const number = await addNumber(org);
    const lead = await createLead(org, uniquePhone());
    const message = await waitForMessage(org, (await send(org, { leadId: lead.id, body: "Hello" })).body.id);
    await textFrom(randomNumber(), number.phoneNumber, "Hi, is this the insurance place?");
    // The CSV is read after the JSON: wait until everything is counted, the charge of the Delivered event included.
    const spend = Number(message.billableAmount).toFixed(4);
    const json = await reportWhen(
      org,
      { days: "3" },
      (r) =>
        r.summary.smsSent === 1 &&
        r.summary.smsReceived === 1 &&
        r.responseMetrics.respondedLeads === 1 &&
        r.summary.usageSpend === spend,
    );
    const query = new URLSearchParams({ startAt: json.range.startAt, endAt: json.range.endAt });
    const response = await org.request("GET", `/analytics/my/export?${query}`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    expect(response.headers.get("content-disposition")).toMatch(
      /^attachment; filename="analytics-\d{4}-\d{2}-\d{2}-to-\d{4}-\d{2}-\d{2}\.csv"$/,
    );
    const text = response.body as string;
    expect(text.endsWith("\r\n")).toBe(true);
    const [header, ...lines] = text.trimEnd().split("\r\n");
    expect(header).toBe(
      "startAt,endAt,label,leads,respondedLeads,averageResponseMinutes,medianResponseMinutes,respondedWithinFiveMinutesPercent," +
        "smsSent,smsReceived,failedOrBlockedSms,callsPlaced,callsReceived,answeredCalls,missedCalls,callSeconds,callMinutes,usageSpend," +
        "agentUserId,agentName,missedLeads",
    );
    const rows = lines.map((line) => line.split(","));
    expect(rows).toHaveLength(json.leadTrend.points.length);
    expect(rows.map((row) => row[2])).toEqual(json.leadTrend.points.map((point: any) => point.label));
    expect(rows.map((row) => row[0])).toEqual(json.leadTrend.points.map((point: any) => point.startAt));
    const column = (name: string) => header!.split(",").indexOf(name);
    const total = (name: string) => rows.reduce((sum, row) => sum + Number(row[column(name)] || 0), 0);
    expect(total("leads")).toBe(json.summary.leads);
    expect(total("respondedLeads")).toBe(json.responseMetrics.respondedLeads);
    expect(total("smsSent")).toBe(json.summary.smsSent);
    expect(total("smsReceived")).toBe(json.summary.smsReceived);
    expect(total("callSeconds")).toBe(json.communicationUsage.callSeconds);
    const csvSpend = rows.reduce((sum, row) => sum + Math.round(Number(row[column("usageSpend")]) * 10_000), 0);
    expect(csvSpend).toBe(Math.round(Number(json.summary.usageSpend) * 10_000));
  });
});
