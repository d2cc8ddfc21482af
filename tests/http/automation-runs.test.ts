import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { webhookSignature } from "#core/automations/definition";
import * as AutomationRuns from "#core/automations/runs/index";
import { nextFireAt } from "#core/automations/runs/cron";
import {
  chain,
  createAutomation,
  listRuns,
  readyToText,
  smsStep,
  lastRunFinished,
  waitForAutomation,
  waitForRun,
  waitForRuns,
} from "#tests/helpers/automations";
import { callFrom } from "#tests/helpers/calls";
import { newSource } from "#tests/helpers/leads";
import { createLead, randomNumber, send, textFrom, waitForMessage } from "#tests/helpers/messaging";
import { newOrganization } from "#tests/helpers/stack";

const hello = {
  id: "hello",
  type: "SendSms",
  settings: {
    body: "Hi {{contact.firstName|there}}, this is {{organization.name}}. Product: {{metadata.product}}",
    fallback: "our plans",
  },
};

/** A local webhook receiver: answers with the queued statuses (then 200) and keeps every request. */
interface Received {
  headers: IncomingMessage["headers"];
  body: string;
}
let server: Server;
let receiverUrl: string;
const received = new Map<string, Received[]>();
const scripted = new Map<string, number[]>();

beforeAll(async () => {
  server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const path = request.url ?? "/";
      received.set(path, [
        ...(received.get(path) ?? []),
        { headers: request.headers, body: Buffer.concat(chunks).toString("utf8") },
      ]);
      const status = scripted.get(path)?.shift() ?? 200;
      response.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify({ ok: status < 300 }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  receiverUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const hook = (path: string, extra: Record<string, unknown> = {}) => ({
  id: "hook",
  type: "HttpRequest",
  settings: { url: `${receiverUrl}${path}`, ...extra },
});

describe("automation runs: every trigger type end to end", () => {
  it("LeadCreated: a posted lead gets the templated SMS, it is delivered, and the run ends Succeeded", async () => {
    const org = await newOrganization("Acme Roofing");
    await readyToText(org);
    const automation = await createAutomation(org, chain({ type: "LeadCreated" }, [hello]));
    const lead = await createLead(org, randomNumber("212"));
    const [run] = await waitForRuns(org, automation.id);
    expect(run).toMatchObject({
      status: "Succeeded",
      automationVersion: 1,
      leadId: lead.id,
      path: ["t", "hello"],
      error: null,
      finishedAt: expect.any(String),
    });
    expect(run.trigger).toMatchObject({
      nodeId: "t",
      type: "LeadCreated",
      eventType: "lead.created",
      eventId: `lead.created:${lead.id}`,
    });
    const step = smsStep(run);
    expect(step).toMatchObject({ status: "Succeeded", attempts: 1, error: null, durationMs: expect.any(Number) });
    expect(step.input.body).toBe("Hi Dana, this is Acme Roofing. Product: our plans");
    const message = await waitForMessage(org, step.output.messageId, (m) => m.status === "Delivered");
    expect(message).toMatchObject({ leadId: lead.id, body: step.input.body, direction: "Outbound" });
    const stored = await waitForAutomation(org, automation.id, lastRunFinished);
    expect(stored).toMatchObject({ lastRunStatus: "Succeeded", lastRunAt: run.createdAt });
    const events = await org.request("POST", "/events/all/my", { body: { pageSize: 100 } });
    const ended = events.body.items.filter((event: any) => event.relatedEntityId === run.id);
    expect(ended).toEqual([
      expect.objectContaining({
        eventType: "AutomationRunSucceeded",
        eventCategory: "Automation",
        status: "Succeeded",
        leadId: lead.id,
        summary: "t → hello",
      }),
    ]);
  });

  it("LeadCreated with sourceIds runs only for leads of those sources", async () => {
    const org = await newOrganization();
    await readyToText(org);
    const [wanted, other] = [await newSource(org), await newSource(org)];
    const automation = await createAutomation(
      org,
      chain({ type: "LeadCreated", settings: { sourceIds: [wanted.sourceId] } }, [hello]),
    );
    const body = (sourceId: string) => ({
      sourceId,
      contact: { firstName: "Sam", phone: { number: randomNumber("212") } },
    });
    expect((await org.request("POST", "/leads", { body: body(other.sourceId) })).status).toBeLessThan(300);
    const posted = await org.request("POST", "/leads", { body: body(wanted.sourceId) });
    const [run] = await waitForRuns(org, automation.id);
    expect(run).toMatchObject({ status: "Succeeded", leadId: posted.body.id });
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(await listRuns(org, automation.id)).toHaveLength(1);
  });

  it("MessageReceived: a lead's reply with a keyword gets an answer that is delivered", async () => {
    const org = await newOrganization();
    const number = await readyToText(org);
    const phone = randomNumber("212");
    const lead = await createLead(org, phone);
    const automation = await createAutomation(
      org,
      chain({ type: "MessageReceived", settings: { keywords: ["quote"] } }, [
        { ...hello, settings: { body: "Here is your quote, {{contact.firstName}}." } },
      ]),
    );
    await textFrom(phone, number.phoneNumber, "hello there");
    await textFrom(phone, number.phoneNumber, " Quote ");
    const [run] = await waitForRuns(org, automation.id);
    expect(run).toMatchObject({
      status: "Succeeded",
      leadId: lead.id,
      trigger: { type: "MessageReceived", eventType: "message.received" },
    });
    expect(run.trigger.data).toMatchObject({ from: phone, to: number.phoneNumber, phoneNumberId: number.id });
    const message = await waitForMessage(org, smsStep(run).output.messageId, (m) => m.status === "Delivered");
    expect(message.body).toBe("Here is your quote, Dana.");
    expect(await listRuns(org, automation.id)).toHaveLength(1);
  });

  it("MessageFailed: an undeliverable text marks the lead through UpdateLead", async () => {
    const org = await newOrganization();
    await readyToText(org);
    const lead = await createLead(org, "+12125550102");
    const automation = await createAutomation(
      org,
      chain({ type: "MessageFailed", settings: { statuses: ["Undeliverable"] } }, [
        {
          id: "mark",
          type: "UpdateLead",
          settings: { fields: { "metadata.vertical": "bad-number", "customer.isHomeowner": false } },
        },
      ]),
    );
    const sent = await send(org, { leadId: lead.id, body: "Hello" });
    await waitForMessage(org, sent.body.id, (m) => m.status === "Undelivered");
    const [run] = await waitForRuns(org, automation.id);
    expect(run).toMatchObject({ status: "Succeeded", leadId: lead.id, trigger: { type: "MessageFailed" } });
    const updated = await org.request("GET", `/leads/${lead.id}`);
    expect(updated.body.metadata.vertical).toBe("bad-number");
    expect(updated.body.customer.isHomeowner).toBe(false);
  });

  it("CallMissed: a missed call from a lead gets a text back that is delivered", async () => {
    const org = await newOrganization();
    const number = await readyToText(org);
    const phone = randomNumber("212");
    const lead = await createLead(org, phone);
    const automation = await createAutomation(
      org,
      chain({ type: "CallMissed", settings: { phoneNumberIds: [number.id] } }, [
        { ...hello, settings: { body: "Sorry we missed your call, {{contact.firstName}}!" } },
      ]),
    );
    await callFrom(phone, number.phoneNumber);
    const [run] = await waitForRuns(org, automation.id);
    expect(run).toMatchObject({
      status: "Succeeded",
      leadId: lead.id,
      trigger: { type: "CallMissed", eventType: "call.missed" },
    });
    const message = await waitForMessage(org, smsStep(run).output.messageId, (m) => m.status === "Delivered");
    expect(message.body).toBe("Sorry we missed your call, Dana!");
  });

  it("LeadOptedOut: STOP reaches a signed webhook with the lead's data", async () => {
    const org = await newOrganization();
    const number = await readyToText(org);
    const phone = randomNumber("212");
    const lead = await createLead(org, phone);
    const path = `/opted-out/${org.organizationId}`;
    const automation = await createAutomation(
      org,
      chain({ type: "LeadOptedOut" }, [
        hook(path, { body: '{"leadId":"{{lead.id}}","name":"{{contact.firstName}}"}', secret: "s".repeat(24) }),
      ]),
    );
    await textFrom(phone, number.phoneNumber, "STOP");
    const [run] = await waitForRuns(org, automation.id);
    expect(run).toMatchObject({ status: "Succeeded", leadId: lead.id, trigger: { type: "LeadOptedOut" } });
    const [request] = received.get(path)!;
    expect(JSON.parse(request!.body)).toEqual({ leadId: lead.id, name: "Dana" });
  });

  it("Schedule: the sweep fires an interval trigger in the organization's time zone, once per firing", async () => {
    const org = await newOrganization();
    const path = `/scheduled/${org.organizationId}`;
    const automation = await createAutomation(
      org,
      chain({ type: "Schedule", settings: { intervalMinutes: 1 } }, [hook(path)]),
    );
    const later = new Date(Date.now() + 2 * 60_000);
    await AutomationRuns.sweep({ now: later, organizationId: org.organizationId });
    await AutomationRuns.sweep({ now: later, organizationId: org.organizationId });
    const [run] = await waitForRuns(org, automation.id);
    expect(run).toMatchObject({
      status: "Succeeded",
      leadId: null,
      trigger: { type: "Schedule", eventType: "automation.scheduled" },
    });
    expect(received.get(path)).toHaveLength(1);
    expect(JSON.parse(received.get(path)![0]!.body)).toMatchObject({
      automationId: automation.id,
      runId: run.id,
      leadId: null,
    });
    expect(await listRuns(org, automation.id)).toHaveLength(1);
  });

  it("Schedule: a cron follows the organization's new time zone, firing at the new zone's time and not the old", async () => {
    const org = await newOrganization();
    const path = `/zoned/${org.organizationId}`;
    const settings = { cron: "0 9 * * *" };
    const automation = await createAutomation(org, chain({ type: "Schedule", settings }, [hook(path)]));
    // Set at 09:00 New York (the organization's zone from sign-up); the owner then moves the business to Los Angeles.
    const newYorkNine = nextFireAt(settings, "America/New_York", Date.now());
    const moved = await org.request("PUT", "/organizations/me", { body: { timeZone: "America/Los_Angeles" } });
    expect(moved.status).toBe(200);

    const atOldTime = await AutomationRuns.sweep({
      now: new Date(newYorkNine + 60_000),
      organizationId: org.organizationId,
    });
    expect(atOldTime.schedulesFired).toBe(0);
    const losAngelesNine = nextFireAt(settings, "America/Los_Angeles", newYorkNine + 60_000);
    expect(losAngelesNine - newYorkNine).toBe(3 * 3600_000);
    const atNewTime = await AutomationRuns.sweep({
      now: new Date(losAngelesNine + 60_000),
      organizationId: org.organizationId,
    });
    expect(atNewTime.schedulesFired).toBe(1);
    const [run] = await waitForRuns(org, automation.id);
    expect(run).toMatchObject({ trigger: { type: "Schedule" } });
    expect(await listRuns(org, automation.id)).toHaveLength(1);
  });

  it("Schedule: moved east, a cron whose slot has passed in the new zone fires late rather than never, then keeps the new zone", async () => {
    const org = await newOrganization();
    const settings = { cron: "0 9 * * *" };
    const automation = await createAutomation(
      org,
      chain({ type: "Schedule", settings }, [hook(`/east/${org.organizationId}`)]),
    );
    const newYorkNine = nextFireAt(settings, "America/New_York", Date.now());
    expect((await org.request("PUT", "/organizations/me", { body: { timeZone: "Europe/London" } })).status).toBe(200);

    // 09:00 New York is 14:00 London: London's 09:00 of that day has passed, so the firing happens now.
    const late = await AutomationRuns.sweep({
      now: new Date(newYorkNine + 60_000),
      organizationId: org.organizationId,
    });
    expect(late.schedulesFired).toBe(1);
    const londonNine = nextFireAt(settings, "Europe/London", newYorkNine + 60_000);
    const justBefore = await AutomationRuns.sweep({
      now: new Date(londonNine - 60_000),
      organizationId: org.organizationId,
    });
    expect(justBefore.schedulesFired).toBe(0);
    const onTime = await AutomationRuns.sweep({
      now: new Date(londonNine + 60_000),
      organizationId: org.organizationId,
    });
    expect(onTime.schedulesFired).toBe(1);
    await expect.poll(async () => (await listRuns(org, automation.id)).length, { timeout: 20_000 }).toBe(2);
  });

  it("Manual: POST /automations/{id}/runs answers 202 and the run texts the lead", async () => {
    const org = await newOrganization();
    await readyToText(org);
    const lead = await createLead(org, randomNumber("212"));
    const automation = await createAutomation(org, { ...chain({ type: "Manual" }, [hello]), enabled: false });
    const started = await org.request("POST", `/automations/${automation.id}/runs`, { body: { leadId: lead.id } });
    expect(started.status).toBe(202);
    expect(started.body).toMatchObject({
      automationId: automation.id,
      leadId: lead.id,
      status: "Pending",
      trigger: { type: "Manual", eventType: "Manual" },
    });
    const run = await waitForRun(org, automation.id, started.body.id);
    expect(run.status).toBe("Succeeded");
    await waitForMessage(org, smsStep(run).output.messageId, (m) => m.status === "Delivered");
  });
});

describe("automation runs: signed webhooks", () => {
  it("signs each call over timestamp and body, retries on 500 with backoff and records every response status", async () => {
    const org = await newOrganization();
    const lead = await createLead(org, randomNumber("212"));
    const path = `/flaky/${org.organizationId}`;
    scripted.set(path, [500, 503]);
    const secret = "a-long-webhook-secret";
    const automation = await createAutomation(
      org,
      chain({ type: "Manual" }, [hook(path, { secret, body: '{"email":"{{contact.email|none}}"}', maxRetries: 3 })]),
    );
    const started = await org.request("POST", `/automations/${automation.id}/runs`, { body: { leadId: lead.id } });
    const run = await waitForRun(org, automation.id, started.body.id);
    expect(run.status).toBe("Succeeded");
    const step = run.steps.find((entry: any) => entry.nodeId === "hook");
    expect(step.attempts).toBe(3);
    expect(step.output.status).toBe(200);
    expect(step.output.attempts.map((attempt: any) => attempt.status)).toEqual([500, 503, 200]);
    // Backoff (AUTOMATION_RETRY_BASE_MS = 200 in tests, doubled per attempt) rides on SQS delays, whole seconds.
    const gaps = step.output.attempts
      .slice(1)
      .map((attempt: any, index: number) => Date.parse(attempt.at) - Date.parse(step.output.attempts[index].at));
    for (const gap of gaps) expect(gap).toBeGreaterThanOrEqual(200);
    const requests = received.get(path)!;
    expect(requests).toHaveLength(3);
    for (const request of requests) {
      expect(request.body).toBe('{"email":"none"}');
      const timestamp = Number(request.headers["x-signature-timestamp"]);
      expect(Math.abs(Date.now() / 1000 - timestamp)).toBeLessThan(60);
      expect(request.headers["x-signature"]).toBe(webhookSignature(secret, timestamp, request.body));
      expect(request.headers["idempotency-key"]).toBe(`${run.id}:${step.seq}`);
    }
    const stored = await org.request("GET", `/automations/${automation.id}`);
    expect(JSON.stringify(stored.body)).not.toContain(secret);
  });

  it("fails the run after the last retry, with an automation event and the health figures", async () => {
    const org = await newOrganization();
    const lead = await createLead(org, randomNumber("212"));
    const path = `/down/${org.organizationId}`;
    scripted.set(path, [500, 500]);
    const automation = await createAutomation(org, chain({ type: "Manual" }, [hook(path, { maxRetries: 1 })]));
    const started = await org.request("POST", `/automations/${automation.id}/runs`, { body: { leadId: lead.id } });
    const run = await waitForRun(org, automation.id, started.body.id);
    expect(run).toMatchObject({ status: "Failed", error: expect.stringContaining("500") });
    expect(run.steps.at(-1)).toMatchObject({ nodeId: "hook", status: "Failed", attempts: 2 });
    const events = await org.request("POST", "/events/all/my", { body: { pageSize: 50 } });
    const failure = events.body.items.find((event: any) => event.eventType === "AutomationRunFailed");
    expect(failure).toMatchObject({
      eventCategory: "Automation",
      relatedEntityType: "AutomationRun",
      relatedEntityId: run.id,
      leadId: lead.id,
      status: "Failed",
    });
    const health = await AutomationRuns.health(org.organizationId, {
      startAt: new Date(Date.now() - 3_600_000).toISOString(),
      endAt: new Date(Date.now() + 60_000).toISOString(),
    });
    expect(health).toMatchObject({ automationCount: 1, executions: 1, successCount: 0, failureCount: 1 });
    expect(health.lastFailure).toMatchObject({ automationId: automation.id, name: automation.name, error: run.error });
    expect(health.failingAutomations).toHaveLength(1);
    expect((await waitForAutomation(org, automation.id, lastRunFinished)).lastRunStatus).toBe("Failed");
    const report = (await org.request("GET", "/analytics/my?days=1")).body;
    expect(report.automationHealth.lastFailure).toMatchObject({
      automationId: automation.id,
      name: automation.name,
      error: run.error,
    });
    expect(report.automationHealth.failingAutomations).toEqual([report.automationHealth.lastFailure]);
  });
});
