import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import * as v from "valibot";
import { keys } from "#core/db/keys";
import { queryAll } from "#core/db/query";
import { EventEntity } from "#core/db/entities/events";
import { toEventRecord } from "#core/events/index";
import { defineUnroutedOperation } from "#core/http/operation";
import { apiEvent, lambdaContext } from "#tests/helpers/events";
import { addNumber, randomNumber, send, waitForMessage } from "#tests/helpers/messaging";
import { applyStackEnv, newOrganization } from "#tests/helpers/stack";

/**
 * The test stack writes only warnings; this file turns info logs and EMF metrics on before loading the logger (the
 * metrics module may be loaded already, through the helpers: Powertools reads the switch at each metric).
 */
process.env.POWERTOOLS_LOG_LEVEL = "INFO";
process.env.POWERTOOLS_METRICS_DISABLED = "false";
const { endpoint } = await import("#core/http/endpoint");
const { logger, redactUrl } = await import("#core/observability/index");
const { countMetric } = await import("#core/observability/metrics");
// Loaded already through the helpers' imports, at the test stack's level.
logger.setLogLevel("INFO");

/** Lines written to stdout while `work` runs, parsed when JSON. */
async function stdoutLines(work: () => Promise<unknown>): Promise<any[]> {
  const written: string[] = [];
  const spy = vi.spyOn(process.stdout, "write").mockImplementation((chunk: string | Uint8Array) => {
    written.push(String(chunk));
    return true;
  });
  try {
    await work();
  } finally {
    spy.mockRestore();
  }
  return written
    .join("")
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line));
}

beforeAll(() => applyStackEnv());
afterEach(() => vi.restoreAllMocks());

const probe = defineUnroutedOperation({
  operationId: "observedProbe",
  method: "POST",
  path: "/observed",
  summary: "test operation",
  tag: "Test",
  auth: "bearer",
  body: v.strictObject({ ok: v.boolean() }),
  success: { status: 201, description: "created" },
  problems: [400, 401, 429],
});

describe("structured logs", () => {
  it("writes one JSON line per request: route, status, latency, organization, request id, cold start", async () => {
    const org = await newOrganization();
    const handler = endpoint(probe, async () => ({ done: true }));
    const event = apiEvent({
      method: "POST",
      path: "/observed",
      body: { ok: true },
      headers: { authorization: `Bearer ${org.apiKey}` },
    });
    const lines = await stdoutLines(() => handler(event, lambdaContext()));
    const requests = lines.filter((line) => line.message === "request");
    expect(requests).toHaveLength(1);
    expect(requests[0]).toMatchObject({
      level: "INFO",
      service: "lead-messaging-api",
      route: event.routeKey,
      status: 201,
      organizationId: org.organizationId,
      requestId: event.requestContext.requestId,
      correlationId: event.requestContext.requestId,
      cold_start: expect.any(Boolean),
      latencyMs: expect.any(Number),
    });
    expect(JSON.stringify(requests[0])).not.toContain(org.apiKey);
  });

  it("never logs a secret query parameter, whatever its spelling or percent-encoding", () => {
    expect(redactUrl("/leads/intake?sourceId=s1&api%4Bey=sk_live_1&x=1")).toBe(
      "/leads/intake?sourceId=s1&api%4Bey=…&x=1",
    );
    expect(redactUrl("/leads/intake?apiKey=a&API_KEY=b&%61pikey=c")).toBe(
      "/leads/intake?apiKey=…&API_KEY=…&%61pikey=…",
    );
    // The dashboard's sign-in comes back with a one-time authorization code in its URL: the request log never shows it.
    expect(redactUrl("/app/?code=8f0c2e&state=s1")).toBe("/app/?code=…&state=s1");
    expect(redactUrl("/leads?page=2")).toBe("/leads?page=2");
  });
});

describe("business metrics", () => {
  it("are CloudWatch EMF lines in the LeadMessagingApi namespace, with their reason as a dimension", async () => {
    const lines = await stdoutLines(async () => countMetric("MessageFailed", { reason: "30008" }));
    const emf = lines.find((line) => line._aws);
    expect(emf._aws.CloudWatchMetrics[0]).toMatchObject({
      Namespace: "LeadMessagingApi",
      Dimensions: [expect.arrayContaining(["reason"])],
      Metrics: [{ Name: "MessageFailed", Unit: "Count" }],
    });
    expect(emf).toMatchObject({ MessageFailed: 1, reason: "30008" });
  });
});

describe("correlation ids", () => {
  it("carries the intake request's id through the queue to the lead's events", async () => {
    const org = await newOrganization();
    const created = await org.request("POST", "/leads", {
      body: { contact: { firstName: "Cora", phone: { number: "+12125550142" } } },
      token: org.apiKey,
    });
    expect(created.status).toBeLessThan(300);
    const requestId = created.headers.get("apigw-requestid");
    const leadId = created.body.id;
    let events: Record<string, unknown>[] = [];
    // Intake's hops (outbox stream, queue, consumer) can take several seconds on a busy machine.
    for (
      const deadline = Date.now() + 30_000;
      !events.some((event) => event.eventType === "LeadCreated") && Date.now() < deadline;
    ) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      const { gsi1pk } = keys.eventsByLead(org.organizationId, leadId);
      events = await queryAll({
        index: "eventsByLead",
        KeyConditionExpression: "gsi1pk = :pk",
        ExpressionAttributeValues: { ":pk": gsi1pk },
      });
    }
    expect(events.map((event) => event.eventType)).toContain("LeadCreated");
    for (const event of events) expect(event.correlationId, String(event.eventType)).toBe(requestId);
  });

  it(
    "joins a message's delivery receipt (a callback request of its own) to the journey of the send",
    { timeout: 30_000 },
    async () => {
      const org = await newOrganization();
      await addNumber(org);
      const accepted = await send(org, { to: randomNumber(), body: "follow me" });
      const requestId = accepted.headers.get("apigw-requestid");
      await waitForMessage(org, accepted.body.id, (message) => message.status === "Delivered");
      let events: Record<string, unknown>[] = [];
      for (
        const deadline = Date.now() + 15_000;
        !events.some((event) => event.eventType === "MessageDelivered") && Date.now() < deadline;
      ) {
        const items = await queryAll(EventEntity.query("byCreation", { organizationId: org.organizationId }));
        events = items.filter((event) => toEventRecord(event).relatedEntityId === accepted.body.id);
        if (!events.some((event) => event.eventType === "MessageDelivered"))
          await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(events.map((event) => event.eventType)).toEqual(
        expect.arrayContaining(["MessageAccepted", "MessageDelivered"]),
      );
      for (const event of events) expect(event.correlationId, String(event.eventType)).toBe(requestId);
    },
  );
});
