import { afterAll, describe, expect, it } from "vitest";
import * as Billing from "#core/billing/index";
import * as Organizations from "#core/organizations/index";
import { addNumber, createLead, eventsWhen, randomNumber } from "#tests/helpers/messaging";
import { newOrganization, request, type TestOrganization } from "#tests/helpers/stack";
import { ofType, startReceiver, verified, type Receiver } from "#tests/helpers/webhooks";

const receivers: Receiver[] = [];
afterAll(async () => void (await Promise.all(receivers.map((receiver) => receiver.close()))));

async function receiver(...args: Parameters<typeof startReceiver>): Promise<Receiver> {
  const started = await startReceiver(...args);
  receivers.push(started);
  return started;
}

async function subscribe(org: TestOrganization, url: string, body: Record<string, unknown> = {}) {
  const response = await org.request("POST", "/webhook-endpoints", { body: { url, ...body } });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return response.body as { endpoint: any; secret: string };
}

async function endpointWhen(
  org: TestOrganization,
  id: string,
  done: (endpoint: any) => boolean,
  timeoutMs = 15_000,
): Promise<any> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { body } = await org.request("GET", `/webhook-endpoints/${id}`);
    if (done(body)) return body;
    if (Date.now() > deadline)
      throw new Error(`endpoint ${id} never reached the expected state: ${JSON.stringify(body)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function attempts(org: TestOrganization, id: string, body: Record<string, unknown> = {}): Promise<any[]> {
  const response = await org.request("POST", `/webhook-endpoints/${id}/attempts/all/my`, { body });
  expect(response.status, JSON.stringify(response.body)).toBe(200);
  return response.body.items;
}

/** The attempt log once it has `count` entries: an attempt is logged after its receiver answered, so a beat after the receiver saw it. */
async function attemptsLogged(org: TestOrganization, id: string, count: number, timeoutMs = 15_000): Promise<any[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const log = await attempts(org, id);
    if (log.length >= count || Date.now() > deadline) return log;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe("webhook endpoints", () => {
  it("are created with a whsec_ secret shown once, read, listed, replaced and deleted; members and other tenants cannot reach them", async () => {
    const org = await newOrganization();
    const created = await subscribe(org, "https://crm.example.com/hooks", {
      description: "CRM",
      enabledEventTypes: ["lead.processed", "message.received"],
    });
    expect(created.secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    expect(created.endpoint).toMatchObject({
      url: "https://crm.example.com/hooks",
      description: "CRM",
      enabledEventTypes: ["lead.processed", "message.received"],
      enabled: true,
      health: {
        lastSuccessAt: null,
        lastFailureAt: null,
        consecutiveFailures: 0,
        failingSince: null,
        disabledReason: null,
      },
      modifiedAt: null,
    });
    const id = created.endpoint.id;

    const read = await org.request("GET", `/webhook-endpoints/${id}`);
    expect(read.status).toBe(200);
    expect(JSON.stringify(read.body)).not.toContain(created.secret);
    expect(read.body.secretPreview).toBe(created.secret.slice(0, 10) + "…");

    const listed = await org.request("POST", "/webhook-endpoints/all/my", { body: { pageSize: 10 } });
    expect(listed.status).toBe(200);
    expect(listed.body.items.map((item: any) => item.id)).toEqual([id]);

    const replaced = await org.request("PUT", `/webhook-endpoints/${id}`, {
      body: { url: "https://crm.example.com/v2", enabledEventTypes: "all", enabled: false },
    });
    expect(replaced.status).toBe(200);
    expect(replaced.body).toMatchObject({
      url: "https://crm.example.com/v2",
      description: null,
      enabledEventTypes: "all",
      enabled: false,
      health: { disabledReason: "Manual" },
    });
    expect(replaced.body.modifiedAt).not.toBeNull();

    expect((await org.request("GET", `/webhook-endpoints/${id}`, { token: org.memberToken })).status).toBe(403);
    expect((await org.request("GET", `/webhook-endpoints/${id}`, { token: org.adminToken })).status).toBe(200);
    const other = await newOrganization();
    expect((await other.request("GET", `/webhook-endpoints/${id}`)).status).toBe(404);
    expect((await other.request("DELETE", `/webhook-endpoints/${id}`)).status).toBe(404);

    const key = `create-${id}`;
    const once = await org.request("POST", "/webhook-endpoints", {
      body: { url: "https://other.example.com/hooks" },
      headers: { "idempotency-key": key },
    });
    const again = await org.request("POST", "/webhook-endpoints", {
      body: { url: "https://other.example.com/hooks" },
      headers: { "idempotency-key": key },
    });
    expect([again.status, again.headers.get("idempotent-replayed"), again.body.endpoint.id]).toEqual([
      201,
      "true",
      once.body.endpoint.id,
    ]);

    expect((await org.request("DELETE", `/webhook-endpoints/${id}`)).status).toBe(204);
    expect((await org.request("GET", `/webhook-endpoints/${id}`)).status).toBe(404);
  });

  it("API keys reach them by scope: webhooks:read reads, only webhooks:write changes", async () => {
    const org = await newOrganization();
    const { endpoint } = await subscribe(org, "https://crm.example.com/hooks");
    const { apiKey: reader } = await Organizations.issueApiKey(org.organizationId, {
      name: "reader",
      scopes: ["webhooks:read"],
    });
    expect((await request("GET", `/webhook-endpoints/${endpoint.id}`, { token: reader })).status).toBe(200);
    expect((await request("GET", "/webhook-event-types", { token: reader })).status).toBe(200);
    expect(
      (await request("POST", "/webhook-endpoints", { token: reader, body: { url: "https://x.example.com" } })).status,
    ).toBe(403);
    expect((await request("POST", `/webhook-endpoints/${endpoint.id}/secret`, { token: reader })).status).toBe(403);
    const { apiKey: leadsOnly } = await Organizations.issueApiKey(org.organizationId, {
      name: "leads",
      scopes: ["leads:read"],
    });
    expect((await request("GET", `/webhook-endpoints/${endpoint.id}`, { token: leadsOnly })).status).toBe(403);
  });

  it("refuse bad input with a 400 problem naming the field", async () => {
    const org = await newOrganization();
    for (const body of [
      { url: "not a url" },
      { url: "ftp://files.example.com/in" },
      { url: "https://user:pass@example.com/hooks" },
      { url: "https://example.com/hooks", enabledEventTypes: ["lead.teleported"] },
      { url: "https://example.com/hooks", enabledEventTypes: [] },
      { url: "https://example.com/hooks", extra: true },
    ]) {
      const response = await org.request("POST", "/webhook-endpoints", { body });
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(response.headers.get("content-type")).toContain("application/problem+json");
    }
  });
});

describe("event catalogue", () => {
  it("lists every event type with its payload schema", async () => {
    const org = await newOrganization();
    const response = await org.request("GET", "/webhook-event-types");
    expect(response.status).toBe(200);
    const types = response.body.items.map((item: any) => item.type);
    expect(types).toEqual(
      expect.arrayContaining([
        "lead.received",
        "lead.processed",
        "lead.duplicate",
        "lead.rejected",
        "lead.failed",
        "message.queued",
        "message.sent",
        "message.delivered",
        "message.undelivered",
        "message.failed",
        "message.blocked",
        "message.received",
        "call.completed",
        "call.missed",
        "call.failed",
        "automation_run.succeeded",
        "automation_run.failed",
        "wallet.low_balance",
        "wallet.suspended",
        "phone_number.added",
        "phone_number.removed",
        "webhook_endpoint.disabled",
        "webhook.test",
      ]),
    );
    const lead = response.body.items.find((item: any) => item.type === "lead.processed");
    expect(lead.resource).toBe("lead");
    expect(lead.payloadSchema.required).toEqual(expect.arrayContaining(["id", "type", "timestamp", "data", "event"]));
    expect(lead.payloadSchema.properties.data.anyOf[0].$ref).toBe("#/schemas/WebhookLead");
    expect(response.body.schemas.WebhookLead.required).toEqual(
      expect.arrayContaining(["id", "processingStatus", "contact"]),
    );
    expect(response.body.schemas.WebhookEventRecord.required).toEqual(
      expect.arrayContaining(["id", "eventType", "createdAt"]),
    );
  });
});

describe("deliveries", () => {
  it("a recorded event reaches the endpoint signed per Standard Webhooks, with the resource as the REST API answers it", async () => {
    const org = await newOrganization();
    const hooks = await receiver();
    const { endpoint, secret } = await subscribe(org, hooks.url, { enabledEventTypes: ["phone_number.added"] });
    const number = await addNumber(org);
    const [delivery] = await hooks.waitFor((received) => received.length >= 1);
    const payload = verified(secret, delivery!);
    expect(payload).toMatchObject({
      type: "phone_number.added",
      data: { id: number.id, phoneNumber: number.phoneNumber },
      event: { eventType: "PhoneNumberAdded", relatedEntityId: number.id },
    });
    expect(delivery!.headers["webhook-id"]).toBe(payload.id);
    expect(payload.id).toBe(`msg_${payload.event.id}`);
    expect(payload.data).toEqual((await org.request("GET", `/phone-numbers/${number.id}`)).body);
    const log = await attemptsLogged(org, endpoint.id, 1);
    expect(log).toHaveLength(1);
    expect(log[0]).toMatchObject({
      messageId: payload.id,
      eventType: "phone_number.added",
      attempt: 1,
      succeeded: true,
      httpStatus: 200,
      responseBody: "ok",
      errorKind: null,
    });
    expect(log[0].latencyMs).toBeGreaterThanOrEqual(0);
    expect(
      (await endpointWhen(org, endpoint.id, (e) => e.health.lastSuccessAt !== null)).health.consecutiveFailures,
    ).toBe(0);
  });

  it("only subscribed types are delivered: a lead sends lead.received and lead.processed, nothing else", async () => {
    const org = await newOrganization();
    const leads = await receiver();
    const everything = await receiver();
    const { secret } = await subscribe(org, leads.url, { enabledEventTypes: ["lead.received", "lead.processed"] });
    const all = await subscribe(org, everything.url);
    const lead = await createLead(org, randomNumber("973"));
    await leads.waitFor(
      (received) => ofType(received, "lead.processed").length === 1 && ofType(received, "lead.received").length === 1,
    );
    await addNumber(org);
    await everything.waitFor(
      (received) =>
        ofType(received, "phone_number.added").length === 1 && ofType(received, "lead.processed").length === 1,
    );
    const processed = verified(secret, ofType(leads.received, "lead.processed")[0]!);
    expect(processed.data.id).toBe(lead.id);
    expect(processed.event.eventType).toBe("LeadCreated");
    expect(verified(all.secret, ofType(everything.received, "lead.received")[0]!).data.id).toBe(lead.id);
    expect(leads.received.every((delivery) => /^lead\./.test(JSON.parse(delivery.body).type))).toBe(true);
  });

  it("failed attempts are retried with the same webhook-id until a 2xx, each logged with status, latency and the receiver's answer", async () => {
    const org = await newOrganization();
    const flaky = await receiver((_, index) => (index < 2 ? { status: 500, body: `boom ${index}` } : 204));
    const { endpoint, secret } = await subscribe(org, flaky.url, { enabledEventTypes: ["phone_number.added"] });
    await addNumber(org);
    const received = await flaky.waitFor((all) => all.length >= 3);
    expect(new Set(received.map((delivery) => delivery.headers["webhook-id"])).size).toBe(1);
    for (const delivery of received) verified(secret, delivery);
    const log = await attemptsLogged(org, endpoint.id, 3);
    expect(log.map((entry) => [entry.attempt, entry.httpStatus, entry.succeeded])).toEqual([
      [3, 204, true],
      [2, 500, false],
      [1, 500, false],
    ]);
    expect(log[2]).toMatchObject({ errorKind: "HttpStatus", responseBody: "boom 0" });
    expect(log[2].nextAttemptAt).not.toBeNull();
    const healthy = await endpointWhen(org, endpoint.id, (e) => e.health.lastSuccessAt !== null);
    expect(healthy.health).toMatchObject({ consecutiveFailures: 0, failingSince: null });
    expect(healthy.health.lastFailureAt).not.toBeNull();
    const failedOnly = await attempts(org, endpoint.id, { filters: [{ field: "succeeded", value: false }] });
    expect(failedOnly).toHaveLength(2);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(flaky.received).toHaveLength(3);
  });

  it("410 Gone disables the endpoint at once, records an event delivered to other endpoints, shows in analytics, and PUT re-enables it", async () => {
    const org = await newOrganization();
    const gone = await receiver(() => 410);
    const watcher = await receiver();
    const { endpoint } = await subscribe(org, gone.url, { enabledEventTypes: ["phone_number.added"] });
    const { secret: watcherSecret } = await subscribe(org, watcher.url, {
      enabledEventTypes: ["webhook_endpoint.disabled"],
    });
    await addNumber(org);
    const disabled = await endpointWhen(org, endpoint.id, (e) => !e.enabled);
    expect(disabled.health).toMatchObject({ disabledReason: "Gone", consecutiveFailures: 1 });
    const [notice] = await watcher.waitFor((received) => received.length >= 1);
    expect(verified(watcherSecret, notice!)).toMatchObject({
      type: "webhook_endpoint.disabled",
      data: { id: endpoint.id, enabled: false },
      event: { statusReason: "Gone" },
    });
    expect(gone.received).toHaveLength(1);

    const analytics = await org.request("GET", "/analytics/my");
    expect(analytics.status).toBe(200);
    expect(JSON.stringify(analytics.body.needsAttention)).toContain(endpoint.id);
    expect(analytics.body.activationHealth.items.find((item: any) => item.key === "webhooks")).toMatchObject({
      status: "Incomplete",
      actionHref: `/webhook-endpoints/${endpoint.id}`,
    });

    await addNumber(org);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(gone.received).toHaveLength(1);
    const enabled = await org.request("PUT", `/webhook-endpoints/${endpoint.id}`, {
      body: { url: gone.url, enabledEventTypes: ["phone_number.added"], enabled: true },
    });
    expect(enabled.body).toMatchObject({
      enabled: true,
      health: { disabledReason: null, failingSince: null, consecutiveFailures: 0 },
    });
    expect(JSON.stringify((await org.request("GET", "/analytics/my")).body.needsAttention)).not.toContain(endpoint.id);
  });

  it("an endpoint failing for longer than the stage's span is disabled automatically", async () => {
    const org = await newOrganization();
    const broken = await receiver(() => 503);
    const { endpoint } = await subscribe(org, broken.url, { enabledEventTypes: ["phone_number.added"] });
    await addNumber(org);
    const disabled = await endpointWhen(org, endpoint.id, (e) => !e.enabled, 30_000);
    expect(disabled.health.disabledReason).toBe("FailingTooLong");
    expect(disabled.health.consecutiveFailures).toBeGreaterThan(2);
    // The event is recorded just after the endpoint is disabled.
    const events = await eventsWhen(org, { eventType: "WebhookEndpointDisabled" }, (items) => items.length > 0);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ relatedEntityId: endpoint.id, statusReason: "FailingTooLong" });
  });

  it("a test ping is signed and logged; after rotation both the new and the previous secret verify deliveries", async () => {
    const org = await newOrganization();
    const hooks = await receiver();
    const { endpoint, secret: first } = await subscribe(org, hooks.url, { enabledEventTypes: ["lead.processed"] });
    const ping = await org.request("POST", `/webhook-endpoints/${endpoint.id}/test`);
    expect(ping.status).toBe(202);
    const [pinged] = await hooks.waitFor((received) => received.length === 1);
    expect(verified(first, pinged!)).toMatchObject({
      id: ping.body.messageId,
      type: "webhook.test",
      data: { endpointId: endpoint.id },
    });

    const rotated = await org.request("POST", `/webhook-endpoints/${endpoint.id}/secret`);
    expect(rotated.status).toBe(201);
    const second = rotated.body.secret as string;
    expect(second).not.toBe(first);
    expect(
      Date.parse(rotated.body.endpoint.previousSecretExpiresAt) - Date.parse(rotated.body.endpoint.secretRotatedAt),
    ).toBe(24 * 3600 * 1000);
    await org.request("POST", `/webhook-endpoints/${endpoint.id}/test`);
    const [, afterRotation] = await hooks.waitFor((received) => received.length === 2);
    expect(String(afterRotation!.headers["webhook-signature"]).split(" ")).toHaveLength(2);
    expect(verified(second, afterRotation!).type).toBe("webhook.test");
    expect(verified(first, afterRotation!).type).toBe("webhook.test");
    expect(() => verified("whsec_" + Buffer.alloc(24, 7).toString("base64"), afterRotation!)).toThrow();
  });

  it("replay sends one event again with its webhook-id, and everything since T to an endpoint that was off", async () => {
    const org = await newOrganization();
    const hooks = await receiver();
    const since = new Date().toISOString();
    const { endpoint, secret } = await subscribe(org, hooks.url, {
      enabledEventTypes: ["phone_number.added"],
      enabled: false,
    });
    const numbers = [await addNumber(org), await addNumber(org), await addNumber(org)];
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(hooks.received).toHaveLength(0);

    await org.request("PUT", `/webhook-endpoints/${endpoint.id}`, {
      body: { url: hooks.url, enabledEventTypes: ["phone_number.added"], enabled: true },
    });
    const replay = await org.request("POST", `/webhook-endpoints/${endpoint.id}/replay`, { body: { since } });
    expect(replay.status).toBe(202);
    expect(replay.body).toEqual({ replayed: 3, continueFrom: null });
    const received = await hooks.waitFor((all) => all.length === 3);
    const payloads = received.map((delivery) => verified(secret, delivery));
    expect(payloads.map((payload) => payload.data.id).sort()).toEqual(numbers.map((number) => number.id).sort());

    const eventId = payloads[0].event.id;
    const one = await org.request("POST", `/webhook-endpoints/${endpoint.id}/replay`, { body: { eventId } });
    expect(one.body).toEqual({ replayed: 1, continueFrom: null });
    const [, , , again] = await hooks.waitFor((all) => all.length === 4);
    expect(again!.headers["webhook-id"]).toBe(`msg_${eventId}`);
    expect(
      (
        await org.request("POST", `/webhook-endpoints/${endpoint.id}/replay`, {
          body: { eventId: "01NOSUCHEVENT0000000000000" },
        })
      ).status,
    ).toBe(404);
    expect(
      (await org.request("POST", `/webhook-endpoints/${endpoint.id}/replay`, { body: { since: "yesterday" } })).status,
    ).toBe(400);
  });
});

describe("wallet events", () => {
  it("a balance falling below the low-balance threshold and a suspension are recorded and delivered with the wallet", async () => {
    const org = await newOrganization();
    const hooks = await receiver();
    const { secret } = await subscribe(org, hooks.url, {
      enabledEventTypes: ["wallet.low_balance", "wallet.suspended"],
    });
    const wallet = (await org.request("GET", "/billing/wallet")).body;
    const raised = await org.request("PUT", "/billing/wallet", {
      body: { lowBalanceThreshold: String(Number(wallet.availableBalance) + 1) },
    });
    expect(raised.status, JSON.stringify(raised.body)).toBe(200);
    const [low] = await hooks.waitFor((received) => received.length === 1);
    expect(verified(secret, low!)).toMatchObject({
      type: "wallet.low_balance",
      data: { status: "Low" },
      event: { eventType: "WalletLowBalance", eventCategory: "Billing" },
    });

    await Billing.setSuspended(org.organizationId, true, "Chargeback under review");
    const [, suspended] = await hooks.waitFor((received) => received.length === 2);
    expect(verified(secret, suspended!)).toMatchObject({
      type: "wallet.suspended",
      data: { status: "Suspended" },
      event: { eventType: "WalletSuspended", statusReason: "Chargeback under review" },
    });
    const events = await org.request("POST", "/events/all/my?eventCategory=Billing", { body: {} });
    expect(events.body.items.map((event: any) => event.eventType).sort()).toEqual([
      "WalletLowBalance",
      "WalletSuspended",
    ]);
  });
});
