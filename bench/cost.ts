import { randomUUID } from "node:crypto";
import { BatchWriteCommand } from "@aws-sdk/lib-dynamodb";
import type { APIGatewayProxyEventV2 } from "aws-lambda";
import { ulid } from "ulid";
import { printTable } from "#bench/measure";
import type { BenchContext } from "#bench/run";
import { db, tableName } from "#core/db/client";
import { eventItem } from "#core/events/index";
import * as Leads from "#core/leads/index";
import { leadItem, type Lead } from "#core/leads/index";
import {
  measureScope,
  sequentialDepth,
  startMeasuring,
  stopMeasuring,
  type CallRecord,
} from "#core/observability/call-count";
import { handler as getAutomation } from "#functions/automations/get";
import { handler as listEvents } from "#functions/events/list";
import { handler as intakeQuery } from "#functions/leads/intake-query";
import { handler as intakeBody } from "#functions/leads/intake";
import { handler as listLeads } from "#functions/leads/list";
import { handler as sendMessage } from "#functions/messages/send";
import { apiEvent, lambdaContext } from "#tests/helpers/events";

/**
 * `npm run bench -- cost` (issue 16): what each route and flow costs in AWS
 * terms, counted by the SDK middleware of core/observability/call-count.ts
 * (`MEASURE_CALLS=1`) with DynamoDB Local's consumed-capacity figures:
 * DynamoDB calls, sequential round trips, items read and written, RCU/WCU,
 * SQS calls. Requests are invoked warm (a first call primes the instance) on
 * the handler module itself, measured in its own async scope; a flow (intake →
 * automated SMS delivered, message → Delivered) is measured process-wide,
 * across every consumer, until the stack is quiet. Lists are measured at
 * 10,000 leads. Warms DynamoDB Local's JIT first.
 */

type Row = Record<string, string | number>;

/** A flow's figures; `per`: how many flows the calls are of (each figure divided by it; the depth stays the whole run's). */
function summarize(name: string, calls: CallRecord[], goal = "", per = 1): Row {
  const dynamo = calls.filter((call) => call.service === "dynamodb");
  const sum = (pick: (call: CallRecord) => number) => dynamo.reduce((total, call) => total + pick(call), 0);
  const each = (total: number) => Number((total / per).toFixed(per === 1 ? 1 : 2));
  return {
    flow: name,
    "DynamoDB calls": each(dynamo.length),
    // Several flows measured together: the depth is the whole run's, not one flow's.
    "sequential (all calls)": per === 1 ? sequentialDepth(calls) : `${sequentialDepth(calls)} (all ${per})`,
    "items read": each(sum((call) => call.itemsRead)),
    "items written": each(sum((call) => call.itemsWritten)),
    RCU: each(sum((call) => call.readUnits)),
    "WCU (Local)": each(sum((call) => call.writeUnits)),
    "write units (AWS rule)": each(sum((call) => call.awsWriteUnits)),
    "SQS calls": each(calls.length - dynamo.length),
    goal,
  };
}

/** Stores items straight into the table, 8 BatchWrites of 25 at a time (seeding a bench's data). */
export async function writeAll(all: Record<string, unknown>[]): Promise<void> {
  for (let offset = 0; offset < all.length; offset += 25 * 8) {
    await Promise.all(
      Array.from({ length: 8 }, async (_, chunk) => {
        let requests = all
          .slice(offset + chunk * 25, offset + chunk * 25 + 25)
          .map((Item) => ({ PutRequest: { Item } }));
        while (requests.length) {
          const result = await db().send(new BatchWriteCommand({ RequestItems: { [tableName()]: requests } }));
          requests = (result.UnprocessedItems?.[tableName()] ?? []) as typeof requests;
        }
      }),
    );
  }
}

export async function warmAndMeasure(name: string, goal: string, invoke: () => Promise<unknown>): Promise<Row> {
  await invoke();
  const { measurement } = await measureScope(invoke);
  if (process.env.COST_TRACE === "1") printTrace(name, measurement.calls);
  return summarize(name, measurement.calls, goal);
}

/** Measures everything the stack does from `start` until no call was made for `quietMs` (at most `maxMs`). */
// Quiet for longer than the analytics aggregator's 5 s batching window (stacks/definitions.ts), which the bench keeps as deployed.
async function measureFlow(
  name: string,
  goal: string,
  start: () => Promise<unknown>,
  { quietMs = 6500, maxMs = 30_000, flows = 1 }: { quietMs?: number; maxMs?: number; flows?: number } = {},
): Promise<Row> {
  // Whatever earlier requests still cause (receipts, stream consumers) ends before the flow starts, on a loaded machine too.
  await untilQuiet(quietMs, 120_000);
  const measurement = startMeasuring();
  await start();
  await untilQuiet(quietMs, maxMs, measurement);
  stopMeasuring();
  if (process.env.COST_TRACE === "1") {
    if (flows === 1) printTrace(name, measurement.calls);
    else printTally(name, measurement.calls.filter(ofTheFlow), flows);
  }
  return summarize(name, measurement.calls.filter(ofTheFlow), goal, flows);
}

// The every-minute sweeps may fire inside the window: their due-work queries (gsi3) and run markers are not the flow's.
const ofTheFlow = (call: CallRecord) => call.index !== "gsi3" && !call.target.startsWith("OPERATIONS|");

/** Waits until the stack made no call of a flow for `quietMs` (at most `maxMs`), watching `measurement` or a fresh one. */
async function untilQuiet(quietMs: number, maxMs: number, measurement?: { calls: CallRecord[] }): Promise<void> {
  const watched = measurement ?? startMeasuring();
  const began = Date.now();
  let seen = -1;
  let stableSince = Date.now();
  let quiet = false;
  while (!quiet && Date.now() - began < maxMs) {
    await new Promise((resolve) => setTimeout(resolve, 250));
    const count = watched.calls.filter(ofTheFlow).length;
    if (count !== seen) {
      seen = count;
      stableSince = Date.now();
    } else quiet = Date.now() - stableSince >= quietMs;
  }
  if (!measurement) stopMeasuring();
  // A figure cut short would read as a cheaper flow than it was: say so.
  if (!quiet)
    console.warn(
      `cost bench: the stack was still busy after ${maxMs / 1000} s: the figure around this wait is not clean`,
    );
}

/** `COST_TRACE=1`: every call of a flow in order, with what it touched and its units (where the calls and WCU go). */
function printTrace(name: string, calls: CallRecord[]): void {
  const first = calls[0]?.startedAt ?? 0;
  console.log(`\n### ${name}`);
  for (const record of calls) {
    const units =
      record.service === "dynamodb"
        ? ` ${record.writeUnits ? `${record.writeUnits} WCU (${record.awsWriteUnits} by AWS's rule)` : `${record.readUnits} RCU`}`
        : "";
    console.log(
      `${String(Math.round(record.startedAt - first)).padStart(6)} ms ${record.command.replace(/Command$/, "").padEnd(18)}${record.index ? ` [${record.index}]` : ""} ${record.target}${units}${record.error ? ` (${record.error})` : ""}`,
    );
  }
}

/**
 * `COST_TRACE=1` on a row of many flows: its calls tallied by command, item kind (ids, phone numbers and keys left out)
 * and outcome, per flow, most first.
 */
function printTally(name: string, calls: CallRecord[], flows: number): void {
  const tally = new Map<string, number>();
  for (const record of calls) {
    const kind = record.target
      .replace(/[0-9A-HJKMNP-TV-Z]{26}/g, "<id>")
      .replace(/\+\d{6,}/g, "<phone>")
      .replace(/[0-9a-f]{8}-[0-9a-f-]{27}/g, "<key>");
    const line = `${record.command.replace(/Command$/, "")}${record.index ? ` [${record.index}]` : ""} ${kind}${record.error ? ` (${record.error})` : ""}`;
    tally.set(line, (tally.get(line) ?? 0) + 1);
  }
  console.log(`\n### ${name}: calls per flow`);
  for (const [line, count] of [...tally].sort((a, b) => b[1] - a[1]))
    console.log(`${(count / flows).toFixed(2).padStart(8)} ${line}`);
}

export const call = async (
  handler: (event: APIGatewayProxyEventV2, context: never) => Promise<unknown>,
  event: APIGatewayProxyEventV2,
) => {
  const result = (await handler(event, lambdaContext() as never)) as { statusCode: number; body?: string };
  if (result.statusCode >= 300) throw new Error(`${event.routeKey}: ${result.statusCode} ${result.body}`);
  return result.body ? JSON.parse(result.body) : undefined;
};

const phone = () =>
  `+1201${200 + Math.floor(Math.random() * 700)}${String(Math.floor(Math.random() * 10_000)).padStart(4, "0")}`;

/** DynamoDB Local's JIT needs ~25 s of load before its figures settle (the brief): reads and writes until then. */
async function warmUp(context: BenchContext, automationId: string): Promise<void> {
  const auth = { authorization: `Bearer ${context.apiKey}` };
  const until = Date.now() + Number(process.env.BENCH_WARMUP_MS ?? 25_000);
  while (Date.now() < until) {
    await Promise.all(
      Array.from({ length: 8 }, () =>
        call(
          getAutomation,
          apiEvent({
            method: "GET",
            path: `/automations/${automationId}`,
            routeKey: "GET /automations/{id}",
            pathParameters: { id: automationId },
            headers: auth,
          }),
        ),
      ),
    );
  }
}

export async function costBench(context: BenchContext): Promise<void> {
  if (process.env.MEASURE_CALLS !== "1") throw new Error("run with MEASURE_CALLS=1 (npm run bench -- cost sets it)");
  const auth = { authorization: `Bearer ${context.apiKey}`, "idempotency-key": "" };
  const api = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${context.baseUrl}${path}`, {
      method,
      headers: { ...auth, "idempotency-key": randomUUID(), "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    if (response.status >= 300) throw new Error(`${method} ${path}: ${response.status} ${text}`);
    return text ? JSON.parse(text) : undefined;
  };
  await api("POST", "/phone-numbers", { phoneNumber: "+12125550142", capabilities: ["sms", "mms", "voice"] });
  const source = await api("POST", "/sources", { name: "Cost seller" });
  const idle = await api("POST", "/automations", {
    name: "Idle",
    enabled: false,
    triggers: [{ id: "t", type: "Manual" }],
    actions: [{ id: "a", type: "Wait", settings: { durationSeconds: 60 } }],
    connections: [{ id: "c", sourceNodeId: "t", targetNodeId: "a" }],
  });
  await warmUp(context, idle.id);
  const lead = await api("POST", "/leads", { contact: { firstName: "Cost", phone: { number: phone() } } });
  const sourceHeaders = { "x-source-id": source.sourceId, "x-source-key": source.apiKey };

  const rows: Row[] = [
    await warmAndMeasure("warm GET /automations/{id}", "1 round trip", () =>
      call(
        getAutomation,
        apiEvent({
          method: "GET",
          path: `/automations/${idle.id}`,
          routeKey: "GET /automations/{id}",
          pathParameters: { id: idle.id },
          headers: auth,
        }),
      ),
    ),
    await warmAndMeasure("warm GET /leads/intake", "2 round trips", () =>
      call(
        intakeQuery,
        apiEvent({
          method: "GET",
          path: "/leads/intake",
          routeKey: "GET /leads/intake",
          queryStringParameters: { sourceId: source.sourceId, apiKey: source.apiKey, FirstName: "Ada", Phone: phone() },
        }),
      ),
    ),
    await warmAndMeasure("warm POST /leads/intake", "2 round trips", () =>
      call(
        intakeBody,
        apiEvent({
          method: "POST",
          path: "/leads/intake",
          routeKey: "POST /leads/intake",
          headers: sourceHeaders,
          body: { FirstName: "Ada", Phone: phone() },
        }),
      ),
    ),
    await warmAndMeasure("warm POST /messages {leadId}", "≤ 4 calls / ≤ 3 round trips", () =>
      call(
        sendMessage,
        apiEvent({
          method: "POST",
          path: "/messages",
          routeKey: "POST /messages",
          headers: { ...auth, "idempotency-key": randomUUID() },
          body: { leadId: lead.id, body: "Cost bench" },
        }),
      ),
    ),
  ];
  rows.push(
    await measureFlow("one message: POST → Delivered (all consumers)", "≤ 25 calls / ≤ 50 AWS-rule units", () =>
      api("POST", "/messages", { to: phone(), body: "Cost bench flow" }),
    ),
  );
  await api("PUT", `/automations/${idle.id}`, {
    ...(await api("GET", `/automations/${idle.id}`)),
    enabled: true,
    triggers: [{ id: "t", type: "LeadCreated", settings: {} }],
    actions: [{ id: "a", type: "SendSms", settings: { body: "Hi {{contact.firstName|there}}" } }],
    connections: [{ id: "c", sourceNodeId: "t", targetNodeId: "a" }],
  });
  rows.push(
    await measureFlow(
      "one lead: intake → first automated SMS Delivered (all consumers)",
      "≤ 35 calls / ≤ 100 AWS-rule units",
      () =>
        fetch(`${context.baseUrl}/leads/intake`, {
          method: "POST",
          headers: { ...sourceHeaders, "content-type": "application/json" },
          body: JSON.stringify({ FirstName: "Flow", Phone: phone() }),
        }),
    ),
  );
  // The message flow in a busy organization (issue 27's setting): many messages at once, so the stream consumers count
  // them in shared batches and a rate-limit lease covers many requests, as at the goal's rate. Measured whole and
  // divided by the count. The organization gets a long code per message sent at once, as docs/scale.md's busy one has
  // (~170 numbers at one message a second each), so pacing spreads them rather than queueing them. Last, so the rows
  // above keep their one number (sender choice reads every listed number).
  const together = Number(process.env.COST_MESSAGES_TOGETHER ?? 50);
  const sendTogether = () =>
    Promise.all(
      Array.from({ length: together }, () => api("POST", "/messages", { to: phone(), body: "Cost bench flow" })),
    );
  for (let index = 1; index < together; index++)
    await api("POST", "/phone-numbers", {
      phoneNumber: `+1212555${String(1000 + index).padStart(4, "0")}`,
      capabilities: ["sms", "mms", "voice"],
    });
  rows.push(
    await measureFlow(
      `${together} messages at once: POST → Delivered, per message (all consumers)`,
      "≤ 25 calls / ≤ 50 AWS-rule units",
      sendTogether,
      { maxMs: 180_000, flows: together },
    ),
  );
  // The same burst through one number granted 50 messages a second (the kind of throughput a short code has): paced
  // in lanes (core/messaging/pacing.ts). One gate write a request in 20 ms windows took ~1,900 calls a message here.
  const listed = await api("POST", "/phone-numbers/all/my", { pageSize: 100 });
  for (const number of listed.items as { id: string }[]) await api("DELETE", `/phone-numbers/${number.id}`);
  await api("POST", "/phone-numbers", {
    phoneNumber: "+12125550199",
    capabilities: ["sms", "mms", "voice"],
    messagesPerSecond: 50,
  });
  rows.push(
    await measureFlow(
      `${together} messages at once through one 50-MPS number, per message (all consumers)`,
      "≤ 25 calls / ≤ 50 AWS-rule units",
      sendTogether,
      { maxMs: 180_000, flows: together },
    ),
  );
  printTable(
    "cost per request and flow (WCU (Local): DynamoDB Local's figures; write units (AWS rule): 1 per KB per item written, 2 per KB per item in a transaction, index copies not counted)",
    rows,
  );
  await listCosts(context, lead.id);
}

/** Items read by each list shape at 10,000 leads (and 5,000 events), leads stored straight through core with BatchWrite. */
async function listCosts(context: BenchContext, templateId: string): Promise<void> {
  const count = Number(process.env.BENCH_LIST_LEADS ?? 10_000);
  const template = (await Leads.find(context.organizationId, templateId)) as Lead;
  const start = Date.now() - count * 1000 - 60_000;
  const items = Array.from({ length: count }, (_, index) => {
    const createdMs = start + index * 1000;
    const createdAt = new Date(createdMs).toISOString();
    return leadItem(context.organizationId, {
      ...template,
      id: ulid(createdMs),
      createdAt,
      processingStatus: index % 10 === 0 ? "Rejected" : "Processed",
      metadata: {
        ...template.metadata,
        createdAt,
        utmSource: index % 2500 === 7 ? "rare-utm" : "common-utm",
        price: `${(index * 37) % 500}.${index % 100}`,
      },
      contact: {
        ...template.contact,
        firstName: `N${(index * 7919) % 10_000}`,
        lastName: index % 2500 === 3 ? "Needleman" : "Bulk",
        email: `bulk-${index}@example.com`,
        phone: null,
      },
    });
  });
  const events = Array.from(
    { length: count / 2 },
    (_, index) =>
      eventItem(context.organizationId, {
        eventType: index % 1000 === 1 ? "WebhookEndpointDisabled" : "MessageQueued",
        eventCategory: "Bulk",
        createdAt: new Date(start + index * 2000).toISOString(),
      }).item,
  );
  await writeAll([...items, ...events]);
  const auth = { authorization: `Bearer ${context.apiKey}` };
  const list =
    (
      name: string,
      body: Record<string, unknown>,
      handler = listLeads,
      path = "/leads/all/my",
      query?: Record<string, string>,
    ) =>
    async (): Promise<Row> => {
      const { measurement } = await measureScope(() =>
        call(
          handler,
          apiEvent({
            method: "POST",
            path,
            routeKey: `POST ${path}`,
            headers: auth,
            body: { pageSize: 50, ...body },
            queryStringParameters: query,
          }),
        ),
      );
      const row = summarize(name, measurement.calls);
      return {
        "list shape (page of 50)": name,
        "items read": row["items read"] ?? 0,
        "DynamoDB calls": row["DynamoDB calls"] ?? 0,
        RCU: row.RCU ?? 0,
      };
    };
  const shapes = [
    list("newest first", {}),
    list("sort by name", { orderBy: [{ field: "name", direction: "asc" }] }),
    list("sort by price", { orderBy: [{ field: "price", direction: "desc" }] }),
    list("filter processingStatus", { filters: [{ field: "processingStatus", value: "Rejected" }] }),
    list("non-indexed filter (rare utmSource)", { filters: [{ field: "metadata.utmSource", value: "rare-utm" }] }),
    list("search 'needleman' in name", { search: "needleman", searchFields: ["name"] }),
    list("includeCount", { includeCount: true }),
    list("events of one type", {}, listEvents, "/events/all/my", { eventType: "WebhookEndpointDisabled" }),
  ];
  const rows: Row[] = [];
  for (const shape of shapes) rows.push(await shape());
  printTable(
    `items read per list request at ${count} leads and ${count / 2} events (budget max(4 × pageSize, 500))`,
    rows,
  );
}
