// The report handler is also invoked in this worker to count the items it reads (core/observability/call-count.ts):
// the counting middleware is added when the worker's DynamoDB client is created, on first use, after this line.
process.env.MEASURE_CALLS = "1";

import { afterAll, describe, expect, it } from "vitest";
import { ulid } from "ulid";
import { storeEventItems } from "#core/analytics/backfill";
import { eventItem, type EventRecordInput } from "#core/events/index";
import { measureScope } from "#core/observability/call-count";
import { handler as analyticsHandler } from "#functions/analytics/get";
import { apiEvent, lambdaContext } from "#tests/helpers/events";
import { addNumber, createLead, send, sleep, waitForMessage } from "#tests/helpers/messaging";
import { intakeByBody, newSource, uniquePhone, waitForLead } from "#tests/helpers/leads";
import { newOrganization, parsedAnswer, type TestOrganization } from "#tests/helpers/stack";

afterAll(() => {
  delete process.env.MEASURE_CALLS;
});

const minute = 60_000;
const hour = 60 * minute;
const iso = (t: number) => new Date(t).toISOString();
const floorMinute = (t: number) => Math.floor(t / minute) * minute;

/** Polls the report over HTTP until `done` holds (the stream aggregator counts events a moment after they are stored). */
async function reportWhen(
  org: TestOrganization,
  query: Record<string, string>,
  done: (report: any) => boolean,
  timeoutMs = 60_000,
) {
  const deadline = Date.now() + timeoutMs;
  let last: any;
  while (Date.now() < deadline) {
    const response = await org.request("GET", `/analytics/my?${new URLSearchParams(query)}`);
    expect(response.status).toBe(200);
    last = response.body;
    if (done(last)) return last;
    await sleep(250);
  }
  throw new Error(`analytics never matched; last: ${JSON.stringify(last?.summary)}`);
}

/** The same report from the Lambda handler in this worker, with the DynamoDB items it read. */
async function measuredReport(org: TestOrganization, query: Record<string, string>) {
  const event = apiEvent({
    method: "GET",
    path: "/analytics/my",
    routeKey: "GET /analytics/my",
    queryStringParameters: query,
    headers: { authorization: `Bearer ${org.apiKey}` },
  });
  const { result, measurement } = await measureScope(
    async () =>
      (await analyticsHandler(event, lambdaContext() as never)) as {
        statusCode: number;
        body: string;
        headers: Record<string, string>;
      },
  );
  expect(result.statusCode).toBe(200);
  const url = new URL(`http://local/analytics/my?${new URLSearchParams(query)}`);
  const body = await parsedAnswer("GET", url, new Response(result.body, { status: 200, headers: result.headers }));
  const itemsRead = measurement.calls
    .filter((call) => call.service === "dynamodb")
    .reduce((sum, call) => sum + call.itemsRead, 0);
  return { body, itemsRead };
}

/** Three hours of texts and calls, one event every 4 seconds, stored as event records (the stream aggregator counts them). */
function busyHours(start: number) {
  const inputs: EventRecordInput[] = [];
  for (let at = start + 1234; at < start + 3 * hour; at += 4000) {
    const kind = inputs.length % 5;
    const sms = { eventCategory: "Sms", sentAt: iso(at) } as const;
    if (kind === 0) inputs.push({ eventType: "MessageReceived", eventCategory: "Sms", direction: "Inbound" });
    if (kind === 1) inputs.push({ eventType: "MessageSent", direction: "Outbound", ...sms });
    if (kind === 2)
      inputs.push({
        eventType: "MessageDelivered",
        direction: "Outbound",
        ...sms,
        billingStatus: "Charged",
        billableAmount: 0.0079,
      });
    if (kind === 3) inputs.push({ eventType: "MessageFailed", direction: "Outbound", ...sms });
    if (kind === 4) inputs.push({ eventType: "CallReceived", eventCategory: "Call", direction: "Inbound" });
    Object.assign(inputs.at(-1)!, { id: ulid(at), createdAt: iso(at) });
  }
  return inputs;
}

/** What the events of [start, end) add up to, by the definitions of docs/analytics.md. */
function expected(inputs: EventRecordInput[], start: number, end: number) {
  const inside = inputs.filter((input) => Date.parse(input.createdAt!) >= start && Date.parse(input.createdAt!) < end);
  const count = (type: string) => inside.filter((input) => input.eventType === type).length;
  return {
    smsReceived: count("MessageReceived"),
    smsSent: count("MessageSent"),
    failedOrBlockedSms: count("MessageFailed"),
    callsReceived: count("CallReceived"),
    usageSpend: ((count("MessageDelivered") * 79) / 10_000).toFixed(4),
  };
}

describe("analytics windows whose edges fall mid-hour", () => {
  it("are exact and read a bounded number of items: minute rollups, and event records only of the two partial minutes", async () => {
    const org = await newOrganization();
    const base = Math.floor(Date.now() / hour) * hour - 4 * hour;
    const inputs = busyHours(base);
    await storeEventItems(inputs.map((input) => eventItem(org.organizationId, input).item));
    const all = expected(inputs, base, base + 3 * hour);
    // Every event counted, whatever order the stream's batches were counted in: each event type adds to exactly one of these.
    await reportWhen(
      org,
      { startAt: iso(base), endAt: iso(base + 3 * hour) },
      (r) =>
        r.summary.smsReceived === all.smsReceived &&
        r.summary.smsSent === all.smsSent &&
        r.summary.callsReceived === all.callsReceived &&
        r.summary.usageSpend === all.usageSpend &&
        r.communicationUsage.failedOrBlockedSms === all.failedOrBlockedSms,
    );

    // Mid-hour and mid-minute edges: 10:30.5 into the first hour, 47:15.25 into the third.
    const start = base + 10 * minute + 30_500;
    const end = base + 2 * hour + 47 * minute + 15_250;
    const query = { startAt: iso(start), endAt: iso(end) };
    const want = expected(inputs, start, end);
    const report = (await org.request("GET", `/analytics/my?${new URLSearchParams(query)}`)).body;
    expect(report.summary).toMatchObject({
      smsReceived: want.smsReceived,
      smsSent: want.smsSent,
      callsReceived: want.callsReceived,
      usageSpend: want.usageSpend,
    });
    expect(report.communicationUsage.failedOrBlockedSms).toBe(want.failedOrBlockedSms);
    // Hourly buckets, the first and last clipped to the window: each exact.
    const points = report.communicationUsage.trend.map((point: any) => ({
      smsReceived: point.smsReceived,
      smsSent: point.smsSent,
      spend: point.spend,
    }));
    expect(points).toEqual(
      [start, base + hour, base + 2 * hour].map((from, index) => {
        const figures = expected(inputs, from, index === 2 ? end : base + (index + 1) * hour);
        return { smsReceived: figures.smsReceived, smsSent: figures.smsSent, spend: figures.usageSpend };
      }),
    );

    const { body, itemsRead } = await measuredReport(org, query);
    expect(body.summary).toEqual({ ...report.summary, walletBalance: body.summary.walletBalance });
    const edgeEvents = inputs.filter((input) => {
      const at = Date.parse(input.createdAt!);
      return (at >= start && at < base + hour) || (at >= base + 2 * hour && at < end);
    }).length;
    const partialMinuteEvents = inputs.filter((input) => {
      const at = Date.parse(input.createdAt!);
      return (at >= start && at < floorMinute(start) + minute) || (at >= floorMinute(end) && at < end);
    }).length;
    // This window and the previous period: at most 2 × 59 minute items each, the partial minutes' event records, and the
    // report's other items (hour rollups, wallet, settings): far below the ~1,450 events of the two partial hours.
    expect(edgeEvents).toBeGreaterThan(1400);
    expect(itemsRead).toBeLessThanOrEqual(4 * 59 + partialMinuteEvents + 40);
  });

  it("give the same lead, response and source figures from minute rollups as whole hours give from hour rollups", async () => {
    const began = Date.now();
    const org = await newOrganization();
    await addNumber(org);
    const source = await newSource(org, { name: "Edge seller", defaultPrice: "7.25" });
    const intake = await intakeByBody(source, { FirstName: "Edge", Phone: uniquePhone() });
    const sourced = await waitForLead(org, intake.body.id);
    const direct = await createLead(org, uniquePhone());
    await waitForLead(org, direct.id);
    let spendUnits = 0;
    for (const lead of [sourced, direct]) {
      const message = await waitForMessage(org, (await send(org, { leadId: lead.id, body: "Hello" })).body.id);
      spendUnits += Math.round(Number(message.billableAmount) * 10_000);
    }
    // Every event counted (the stream aggregator writes a batch's minute, hour, day and week items in one transaction).
    const hours = {
      startAt: iso(Math.floor(began / hour) * hour),
      endAt: iso(Math.floor(Date.now() / hour) * hour + 2 * hour),
    };
    const whole = await reportWhen(
      org,
      hours,
      (r) =>
        r.responseMetrics.respondedLeads === 2 &&
        r.summary.smsSent === 2 &&
        r.summary.usageSpend === (spendUnits / 10_000).toFixed(4),
    );

    // Both edges mid-minute with nothing in their partial minutes, so every figure comes from minute rollups.
    const query = { startAt: iso(floorMinute(began) - 29_500), endAt: iso(floorMinute(Date.now()) + 2 * minute + 250) };
    const { body, itemsRead } = await measuredReport(org, query);
    const figures = (r: any) => ({
      leads: r.summary.leads,
      averageResponseMinutes: r.summary.averageResponseMinutes,
      medianResponseMinutes: r.summary.medianResponseMinutes,
      respondedWithinFiveMinutesPercent: r.summary.respondedWithinFiveMinutesPercent,
      smsSent: r.summary.smsSent,
      usageSpend: r.summary.usageSpend,
      responded: r.responseMetrics.respondedLeads,
      leadSources: r.leadSources,
    });
    expect(figures(body)).toEqual(figures(whole));
    expect(body.summary.leads).toBe(2);
    expect(itemsRead).toBeLessThanOrEqual(4 * 59 + 40);
  });
  it("read no event records however busy the edge minutes are: second rollups answer the partial minutes", async () => {
    const org = await newOrganization();
    const base = Math.floor(Date.now() / hour) * hour - 4 * hour;
    const start = base + 10 * minute + 30_000;
    const end = base + 2 * hour + 47 * minute + 15_000;
    // 1,200 events in each edge's minute (one every 50 ms: 72,000 a minute), a few in the whole minutes between.
    const inputs: EventRecordInput[] = [];
    const add = (at: number) => {
      const kind = inputs.length % 3;
      if (kind === 0) inputs.push({ eventType: "MessageReceived", eventCategory: "Sms", direction: "Inbound" });
      if (kind === 1)
        inputs.push({ eventType: "MessageSent", eventCategory: "Sms", direction: "Outbound", sentAt: iso(at) });
      if (kind === 2)
        inputs.push({
          eventType: "MessageDelivered",
          eventCategory: "Sms",
          direction: "Outbound",
          sentAt: iso(at),
          billingStatus: "Charged",
          billableAmount: 0.0079,
        });
      Object.assign(inputs.at(-1)!, { id: ulid(at), createdAt: iso(at) });
    };
    for (const edgeMinute of [floorMinute(start), floorMinute(end)])
      for (let at = edgeMinute + 25; at < edgeMinute + minute; at += 50) add(at);
    for (let at = start + 7 * minute; at < end - 7 * minute; at += 10 * minute) add(at);
    await storeEventItems(inputs.map((input) => eventItem(org.organizationId, input).item));
    const query = { startAt: iso(start), endAt: iso(end) };
    const want = expected(inputs, start, end);
    await reportWhen(
      org,
      { startAt: iso(base), endAt: iso(base + 3 * hour) },
      (r) =>
        r.summary.smsReceived + r.summary.smsSent + r.communicationUsage.failedOrBlockedSms ===
        inputs.length - inputs.filter((input) => input.eventType === "MessageDelivered").length,
      120_000,
    );

    const { body, itemsRead } = await measuredReport(org, query);
    expect(body.range).toEqual(query);
    expect(body.summary).toMatchObject({
      smsReceived: want.smsReceived,
      smsSent: want.smsSent,
      usageSpend: want.usageSpend,
    });
    const partialMinuteEvents = inputs.filter((input) => {
      const at = Date.parse(input.createdAt!);
      return (at >= start && at < floorMinute(start) + minute) || (at >= floorMinute(end) && at < end);
    }).length;
    expect(partialMinuteEvents).toBeGreaterThan(800);
    // This window and the previous period: at most 59 minute and 59 second items at each of their four edges, and the
    // report's other items (hour rollups, wallet, settings); bounded by the minutes, not by the events they hold.
    expect(itemsRead).toBeLessThanOrEqual(4 * (59 + 59) + 40);
    expect(itemsRead).toBeLessThan(partialMinuteEvents);
  });
});
