import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { table } from "#core/db/items";
import { keys } from "#core/db/keys";
import { queryAll } from "#core/db/query";
import { LeadEntity } from "#core/db/entities/leads";
import { killedAfterWrite } from "#tests/helpers/crash";
import { organizationItems } from "#tests/helpers/partitions";
import { apiEvent, lambdaContext } from "#tests/helpers/events";
import { addNumber, createLead as newLead, events, magic, randomNumber } from "#tests/helpers/messaging";
import { applyStackEnv, newOrganization, type TestOrganization } from "#tests/helpers/stack";
import { handler as createLead } from "#functions/leads/create";
import { handler as sendMessage } from "#functions/messages/send";
import { handler as placeCall } from "#functions/calls/place";
import { handler as topUpWallet } from "#functions/billing/top-up";
import { handler as createPhoneNumber } from "#functions/phone-numbers/create";
import { handler as startAutomationRun } from "#functions/automations/runs/start";
import { handler as createWebhookEndpoint } from "#functions/webhook-endpoints/create";
import { handler as createAutomationRequest } from "#functions/automations/create";
import { handler as createSuppression } from "#functions/suppressions/create";
import { chain, createAutomation, waitForRun } from "#tests/helpers/automations";
import { allLedgerEntries } from "#tests/helpers/billing";
import { carrierRequests, onCarrier } from "#tests/helpers/carriers";

/** The ids of the stored items in the organization's partition whose sort key begins with `prefix` (CALL#, TOPUP#…). */
async function storedIds(org: TestOrganization, prefix: string): Promise<string[]> {
  const { Items = [] } = await table.query({
    KeyConditionExpression: "pk = :pk AND begins_with(sk, :prefix)",
    ExpressionAttributeValues: { ":pk": keys.organization(org.organizationId).pk, ":prefix": prefix },
    ConsistentRead: true,
  });
  return Items.map((item) => String(item.id ?? item.sk.slice(prefix.length)));
}

/** The ids of the organization's stored items of one entity kept in partitions of their own (messages, runs). */
async function storedOwnIds(org: TestOrganization, entity: string): Promise<string[]> {
  return (await organizationItems(org, [entity])).map((item) => String(item.id));
}

/** The organization's leads, from their write-sharded creation index (each lead is in a partition of its own). */
async function storedLeadIds(org: TestOrganization): Promise<string[]> {
  const leads = await queryAll(LeadEntity.query("byCreation", { organizationId: org.organizationId }));
  return leads.map((item) => String(item.id));
}

/**
 * The first request with a key (a 3 s function timeout: the chain answers 503 one second before it, httpLimits) dies
 * right after it stored its resource, before answering or completing the key; the client retries with the same key.
 */
async function killedThenRetried(
  org: TestOrganization,
  route: {
    path: string;
    /** For a path with parameters: the route's template and its parameters (the key's scope is the route). */
    template?: { routeKey: string; pathParameters: Record<string, string> };
    handler: (event: ReturnType<typeof apiEvent>, context: ReturnType<typeof lambdaContext>) => Promise<unknown>;
  },
  body: unknown,
  storedAs: RegExp,
) {
  const key = randomUUID();
  const event = apiEvent({
    method: "POST",
    path: route.path,
    ...route.template,
    body,
    headers: { authorization: `Bearer ${org.ownerToken}`, "idempotency-key": key },
  });
  await killedAfterWrite(storedAs, () =>
    route.handler(event, { ...lambdaContext(), getRemainingTimeInMillis: () => 3_000 }),
  );
  // As a client does: a 409 while the first request could still be running, retried until its function timeout passed.
  let retry = await org.request("POST", route.path, { body, headers: { "idempotency-key": key } });
  for (const deadline = Date.now() + 30_000; retry.status === 409 && Date.now() < deadline;) {
    await new Promise((resolve) => setTimeout(resolve, 200));
    retry = await org.request("POST", route.path, { body, headers: { "idempotency-key": key } });
  }
  const again = await org.request("POST", route.path, { body, headers: { "idempotency-key": key } });
  return { retry, again };
}

describe("an Idempotency-Key survives a crash: one keyed request yields at most one lead, message or call", () => {
  applyStackEnv();

  it("POST /leads killed right after storing its lead: the retry answers that lead, and no second one is stored", async () => {
    const org = await newOrganization();
    const body = { contact: { firstName: "Kim", phone: { number: randomNumber() } } };
    const { retry, again } = await killedThenRetried(
      org,
      { path: "/leads", handler: createLead },
      body,
      /"processingStatus":(\{"S":)?"Pending"/,
    );
    const stored = await storedLeadIds(org);
    expect(stored).toHaveLength(1);
    expect([retry.status, retry.body.id]).toEqual([201, stored[0]]);
    expect([again.status, again.headers.get("idempotent-replayed"), again.body.id]).toEqual([201, "true", stored[0]]);
  });

  it("POST /messages killed right after storing its message: the retry answers that message, and no second one is stored", async () => {
    const org = await newOrganization();
    await addNumber(org);
    const body = { to: randomNumber(), body: "once only" };
    const { retry, again } = await killedThenRetried(
      org,
      { path: "/messages", handler: sendMessage },
      body,
      /"entity":(\{"S":)?"Message"/,
    );
    const stored = await storedOwnIds(org, "Message");
    expect(stored).toHaveLength(1);
    expect([retry.status, retry.body.id]).toEqual([202, stored[0]]);
    expect(again.body.id).toBe(stored[0]);
  });

  it("POST /calls killed right after storing its call and hold: the retry answers that call, and no second one is placed", async () => {
    const org = await newOrganization();
    await addNumber(org);
    const body = { to: magic("27") };
    const { retry, again } = await killedThenRetried(
      org,
      { path: "/calls", handler: placeCall },
      body,
      /"entity":(\{"S":)?"Call"/,
    );
    const stored = await storedOwnIds(org, "Call");
    expect(stored).toHaveLength(1);
    expect([retry.status, retry.body.id]).toEqual([202, stored[0]]);
    expect(again.body.id).toBe(stored[0]);
  });

  it("POST /billing/wallet/top-ups killed right after storing its top-up: the retry gives that top-up its payment page, and no second top-up is stored", async () => {
    const org = await newOrganization();
    const body = { amount: "5.00" };
    const { retry, again } = await killedThenRetried(
      org,
      { path: "/billing/wallet/top-ups", handler: topUpWallet },
      body,
      /"entity":(\{"S":)?"TopUp"/,
    );
    const stored = await storedIds(org, "TOPUP#");
    expect(stored).toHaveLength(1);
    expect([retry.status, retry.body.id, retry.body.status]).toEqual([201, stored[0], "Pending"]);
    expect(retry.body.checkoutUrl).toEqual(expect.any(String));
    expect(again.body).toEqual(retry.body);
  });

  it("POST /phone-numbers (purchase) killed right after storing its number and fee: the retry buys it once at the carrier and answers it, and no second number or fee is stored", async () => {
    const org = await newOrganization();
    await onCarrier(org, "telnyx");
    const offered = await org.request("GET", "/available-phone-numbers?areaCode=718&limit=1");
    const chosen = offered.body.items[0].phoneNumber as string;
    const { retry, again } = await killedThenRetried(
      org,
      { path: "/phone-numbers", handler: createPhoneNumber },
      { phoneNumber: chosen, purchase: true },
      /"entity":(\{"S":)?"PhoneNumber"/,
    );
    const stored = await storedOwnIds(org, "PhoneNumber");
    expect(stored).toHaveLength(1);
    expect([retry.status, retry.body.id, retry.body.phoneNumber]).toEqual([201, stored[0], chosen]);
    expect(again.body).toEqual(retry.body);
    const orders = (await carrierRequests(chosen)).filter((request) => request.path === "/v2/number_orders");
    expect(orders).toHaveLength(1);
    const fees = (await allLedgerEntries(org)).filter((entry) => entry.reason === "PhoneNumberMonthly");
    expect(fees).toHaveLength(1);
  });

  it("POST /automations/{id}/runs killed right after storing its run: the retry answers and finishes that run, and no second run is started", async () => {
    const org = await newOrganization();
    const automation = await createAutomation(org, chain({ type: "Manual" }, [{ id: "stop", type: "Stop" }]));
    const leadId = (await newLead(org, randomNumber("212"))).id;
    const path = `/automations/${automation.id}/runs`;
    const { retry, again } = await killedThenRetried(
      org,
      {
        path,
        template: { routeKey: "POST /automations/{id}/runs", pathParameters: { id: automation.id } },
        handler: startAutomationRun,
      },
      { leadId },
      /"entity":(\{"S":)?"AutomationRun"/,
    );
    const stored = await storedOwnIds(org, "AutomationRun");
    expect(stored).toHaveLength(1);
    expect([retry.status, retry.body.id]).toEqual([202, stored[0]]);
    expect(again.body.id).toBe(stored[0]);
    expect((await waitForRun(org, automation.id, retry.body.id)).status).toBe("Succeeded");
  });

  it("POST /webhook-endpoints killed right after storing its endpoint: the retry answers that endpoint with its secret, and no second one is stored", async () => {
    const org = await newOrganization();
    const { retry, again } = await killedThenRetried(
      org,
      { path: "/webhook-endpoints", handler: createWebhookEndpoint },
      { url: "https://crm.example.com/hooks", enabledEventTypes: ["lead.processed"] },
      /"entity":(\{"S":)?"WebhookEndpoint"/,
    );
    const stored = await storedIds(org, "WEBHOOKENDPOINT#");
    expect(stored).toHaveLength(1);
    expect([retry.status, retry.body.endpoint.id, retry.body.secret]).toEqual([201, stored[0], expect.any(String)]);
    expect(again.body).toEqual(retry.body);
  });

  it("POST /automations killed right after storing its automation: the retry answers that automation, and no second one is stored", async () => {
    const org = await newOrganization();
    const { retry, again } = await killedThenRetried(
      org,
      { path: "/automations", handler: createAutomationRequest },
      chain({ type: "Manual" }, [{ id: "stop", type: "Stop" }]),
      /"entity":(\{"S":)?"Automation"/,
    );
    const stored = await storedOwnIds(org, "Automation");
    expect(stored).toHaveLength(1);
    expect([retry.status, retry.body.id]).toEqual([201, stored[0]]);
    expect(again.body).toEqual(retry.body);
  });

  it("POST /suppressions killed right after storing its entry: the retry answers that entry (one per number by its key), and no second one is stored", async () => {
    const org = await newOrganization();
    const phoneNumber = randomNumber();
    const { retry, again } = await killedThenRetried(
      org,
      { path: "/suppressions", handler: createSuppression },
      { phoneNumber },
      /"entity":(\{"S":)?"Suppression"/,
    );
    expect(await organizationItems(org, ["Suppression"])).toEqual([expect.anything()]);
    expect([retry.status, retry.body.phoneNumber, retry.body.reason]).toEqual([201, phoneNumber, "Manual"]);
    expect(again.body).toEqual(retry.body);
  });
});

/** The organization's stored audit entries of one resource (read from the table: an entry written twice shows twice). */
async function auditEntriesOf(org: TestOrganization, resourceId: string): Promise<Record<string, unknown>[]> {
  const { Items = [] } = await table.query({
    KeyConditionExpression: "pk = :pk AND begins_with(sk, :prefix)",
    ExpressionAttributeValues: {
      ":pk": keys.auditPrefix(org.organizationId).pk,
      ":prefix": keys.auditPrefix(org.organizationId).skPrefix,
    },
    ConsistentRead: true,
  });
  return Items.filter((item) => item.resourceId === resourceId);
}

const eventsOf = async (org: TestOrganization, eventType: string, relatedEntityId: string) =>
  (await events(org)).filter((event) => event.eventType === eventType && event.relatedEntityId === relatedEntityId);

describe("what a keyed create writes after its resource survives a crash too: one audit entry, one event", () => {
  applyStackEnv();

  it("POST /webhook-endpoints killed right after its audit entry: the retry writes no second entry", async () => {
    const org = await newOrganization();
    const { retry } = await killedThenRetried(
      org,
      { path: "/webhook-endpoints", handler: createWebhookEndpoint },
      { url: "https://crm.example.com/hooks", enabledEventTypes: ["lead.processed"] },
      /"entity":(\{"S":)?"AuditEntry"/,
    );
    expect(retry.status).toBe(201);
    const entries = await auditEntriesOf(org, retry.body.endpoint.id);
    expect(entries.map((entry) => entry.action)).toEqual(["webhookEndpoint.created"]);
  });

  it("POST /automations killed right after storing its automation: the retry writes its one audit entry", async () => {
    const org = await newOrganization();
    const { retry } = await killedThenRetried(
      org,
      { path: "/automations", handler: createAutomationRequest },
      chain({ type: "Manual" }, [{ id: "stop", type: "Stop" }]),
      /"entity":(\{"S":)?"Automation"/,
    );
    const entries = await auditEntriesOf(org, retry.body.id);
    expect(entries.map((entry) => entry.action)).toEqual(["automation.created"]);
  });

  it("POST /suppressions killed right after storing its entry: its SuppressionAdded event was stored with it, once", async () => {
    const org = await newOrganization();
    const phoneNumber = randomNumber();
    const { retry } = await killedThenRetried(
      org,
      { path: "/suppressions", handler: createSuppression },
      { phoneNumber },
      /"entity":(\{"S":)?"Suppression"/,
    );
    expect(retry.status).toBe(201);
    expect(await eventsOf(org, "SuppressionAdded", phoneNumber)).toHaveLength(1);
    expect((await auditEntriesOf(org, phoneNumber)).map((entry) => entry.action)).toEqual(["suppression.added"]);
  });

  it("POST /phone-numbers (purchase) killed right after its carrier setup: its PhoneNumberAdded event was stored with the carrier id, once", async () => {
    const org = await newOrganization();
    await onCarrier(org, "telnyx");
    const offered = await org.request("GET", "/available-phone-numbers?areaCode=718&limit=1");
    const chosen = offered.body.items[0].phoneNumber as string;
    const { retry } = await killedThenRetried(
      org,
      { path: "/phone-numbers", handler: createPhoneNumber },
      { phoneNumber: chosen, purchase: true },
      // The transaction that sets the carrier id (an attribute name of its update expression).
      /":"providerNumberId"/,
    );
    expect([retry.status, retry.body.phoneNumber]).toEqual([201, chosen]);
    expect(await eventsOf(org, "PhoneNumberAdded", retry.body.id)).toHaveLength(1);
    expect((await auditEntriesOf(org, retry.body.id)).map((entry) => entry.action)).toEqual(["phoneNumber.added"]);
    const orders = (await carrierRequests(chosen)).filter((request) => request.path === "/v2/number_orders");
    expect(orders).toHaveLength(1);
  });
});
