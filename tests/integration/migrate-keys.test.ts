import { DeleteCommand, PutCommand } from "@aws-sdk/lib-dynamodb";
import { describe, expect, it } from "vitest";
import { db, tableName } from "#core/db/client";
import { LeadEntity } from "#core/db/entities/leads";
import { UsageDayEntity, WalletShardEntity } from "#core/db/entities/billing";
import { AutomationRunClaimEntity } from "#core/db/entities/automations";
import { withoutKeys } from "#core/db/indexes";
import { keys } from "#core/db/keys";
import { queryAll } from "#core/db/query";
import { getItem, table } from "#core/db/items";
import { migrateKeys } from "#core/db/migrate-keys";
import * as Billing from "#core/billing/index";
import * as ConsentSettingsStore from "#core/consent/settings";
import { copyKey, settingsCopies } from "#core/db/keys/shared";
import { leadFacts, rangeFigures } from "#core/analytics/read";
import { histogramUpdate, packHistogram, parseHistogram, rollupUpdate } from "#core/analytics/rollups";
import { transact, Transaction } from "#core/db/transact";
import { chain, createAutomation, listRuns, readyToText, waitForRun } from "#tests/helpers/automations";
import { callEventsOf, waitForCall } from "#tests/helpers/calls";
import { events as messageEvents, magic, randomNumber, send, waitForMessage } from "#tests/helpers/messaging";
import { ProviderMessageEntity } from "#core/db/entities/messaging";
import { AnalyticsCountedEntity } from "#core/db/entities/analytics";
import { scannedOrganizationItems } from "#tests/helpers/partitions";
import { intakeByBody, newSource, uniquePhone, waitForLead } from "#tests/helpers/leads";
import { newOrganization, type TestOrganization } from "#tests/helpers/stack";
import { adminCli } from "#tests/helpers/admin";

/** The entities issue 27 keyed apart, in partitions of their own. */
const movedEntities = [
  "Lead",
  "Event",
  "LeadClaim",
  "Message",
  "ProviderMessage",
  "AutomationRun",
  "AutomationRunClaim",
  "AnalyticsLead",
  "AnalyticsCounted",
  "Reservation",
  "Call",
  "CallByPhone",
  "ProviderCall",
  "Conversation",
  "ConversationByPhone",
  "PhoneNumber",
  "NumberHealth",
  "Automation",
  "WalletShard",
  "LedgerEntry",
  "UsageDay",
];

/** Every item of the organization outside its own partition (its leads', events', claims', messages'…, issue 27). */
async function movedItems(org: TestOrganization) {
  const partition = keys.organization(org.organizationId).pk;
  return (await scannedOrganizationItems(org, movedEntities)).filter((item) => item.pk !== partition);
}

/**
 * The item as the layout before issue 27 indexed it: a lead's, an event's and a counted lead's index keys were all
 * derived again (sharded since); a run had no list of its automation's runs and one partition of its active ones, a
 * call, a conversation, a phone number and an automation no creation entry (their listing was a prefix of the
 * organization's partition), a ledger entry none either and one partition of them by amount; a claim, a number's
 * health bucket and a usage day have none, and a message's and its
 * pointer's (its conversation, its due entry) are as they were.
 */
function oldIndexKeys(item: Record<string, unknown>): Record<string, unknown> {
  if (["Lead", "Event", "AnalyticsLead"].includes(String(item.entity))) return withoutKeys(item);
  if (
    !["AutomationRun", "Call", "Conversation", "PhoneNumber", "Automation", "LedgerEntry"].includes(String(item.entity))
  )
    return item;
  const { gsi8pk: _pk, gsi8sk: _sk, ...old } = item;
  if (item.entity === "LedgerEntry") return { ...old, gsi5pk: String(old.gsi5pk).replace(/#\d+$/, "") };
  if (item.entity !== "AutomationRun") return old;
  return { ...old, ...(old.gsi2pk ? { gsi2pk: String(old.gsi2pk).replace(/#\d+$/, "") } : {}) };
}

/**
 * The organization's moved items once every kind has been written (an event's counted marker comes from the table
 * stream) and no write is under way (events are recorded just after their change).
 */
async function settledItems(org: TestOrganization) {
  const deadline = Date.now() + 30_000;
  let items = await movedItems(org);
  for (
    let count = -1;
    count !== items.length || new Set(items.map((item) => item.entity)).size < movedEntities.length;
  ) {
    if (Date.now() > deadline) break;
    count = items.length;
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    items = await movedItems(org);
  }
  return items;
}

/**
 * Puts the organization's moved items back where the layout before issue 27 kept them: in the organization's
 * partition, under the same sort key, without the index keys that layout lacked. The old items go in under an
 * entity no stream consumer reads and get theirs back by an update, as they were stored long ago.
 */
async function toOldLayout(items: Record<string, unknown>[]) {
  for (const item of items) {
    const old = { ...oldIndexKeys(item), pk: keys.organization(String(item.pk).split("#")[1]!).pk, sk: item.sk };
    await db().send(new PutCommand({ TableName: tableName(), Item: { ...old, entity: "Fixture" } }));
    await table.update({
      Key: { pk: old.pk, sk: old.sk },
      UpdateExpression: "SET entity = :entity",
      ExpressionAttributeValues: { ":entity": item.entity },
    });
    await db().send(new DeleteCommand({ TableName: tableName(), Key: { pk: item.pk, sk: item.sk } }));
  }
}

/** Puts the organization's price list and consent settings back as one item each in its partition, as stored before. */
async function settingsToOldLayout(organizationId: string) {
  for (const sk of ["SETTINGS#PRICES", "SETTINGS#CONSENT"]) {
    const stored = await getItem(copyKey(organizationId, sk, 0), { consistent: true });
    const { copy: _copy, organizationId: _organization, ...old } = stored!;
    await table.put({ Item: { ...old, pk: keys.organization(organizationId).pk, sk } });
    for (let index = 0; index < settingsCopies; index++)
      await table.delete({ Key: copyKey(organizationId, sk, index) });
  }
}

/** Runs `npm run admin -- <args>` as an operator would, against the test stack. */
const admin = adminCli();

describe("migrate-keys", () => {
  it("moves leads, events, claims, messages, runs, analytics lead facts and markers, holds, calls, conversations, phone numbers, their health, automations, wallet shards, ledger entries and usage days stored in the organization's partition to their own, once", async () => {
    const org = await newOrganization();
    const source = await newSource(org);
    const phone = uniquePhone();
    const lead = await intakeByBody(source, { FirstName: "Old", Phone: phone, Price: "2" });
    await waitForLead(org, lead.body.id);
    await readyToText(org);
    const contact = randomNumber();
    const text = await send(org, { to: contact, body: "stored long ago" });
    expect(text.status).toBe(202);
    const delivered = await waitForMessage(org, text.body.id);
    const placed = await org.request("POST", "/calls", { body: { to: magic("20", "646") } });
    expect(placed.status).toBe(202);
    const call = await waitForCall(org, placed.body.id);
    const callLog = async () =>
      (await org.request("POST", "/calls/all/my", { body: {} })).body.items.map((c: { id: string }) => c.id);
    const numberCalls = async () => (await callEventsOf(org, encodeURIComponent(call.toPhoneNumber))).map((c) => c.id);
    expect(await callLog()).toEqual([call.id]);
    const conversations = async () =>
      (
        await org.request("POST", "/conversations/all/my", {
          body: { orderBy: [{ field: "createdAt", direction: "desc" }] },
        })
      ).body.items.map((c: { id: string }) => c.id);
    // The text's conversation and the call's (a call to a new contact starts one too), newest first.
    const conversationId = String(delivered.conversationId);
    const conversationIds = await conversations();
    expect(conversationIds).toHaveLength(2);
    expect(conversationIds).toContain(conversationId);
    const waits = chain({ type: "Manual" }, [{ id: "wait", type: "Wait", settings: { durationSeconds: 3600 } }]);
    const automation = await createAutomation(org, waits);
    const started = await org.request("POST", `/automations/${automation.id}/runs`, { body: { leadId: lead.body.id } });
    expect(started.status).toBe(202);
    const waiting = await waitForRun(org, automation.id, started.body.id, (run) => run.status === "Waiting");
    // Before issue 27 every run was claimed by an item of its own. A manual run started now is claimed by its own put
    // (its id derived from the trigger) unless its trigger predates the process, so the claim the old layout held
    // is written here as that code wrote it (the same item when this run took the claim path).
    await table.put(
      AutomationRunClaimEntity.putAt(
        { organizationId: org.organizationId, automationId: automation.id, triggerEventId: waiting.trigger.eventId },
        { runId: waiting.id, createdAt: waiting.createdAt },
      ),
    );
    // Written as the code before issue 27's fourteenth pass wrote them: the text's provider-id pointer, and a count-once
    // marker of its own for its Sent event (since, an outbound message keeps no pointer and its events share a marker).
    await table.put(
      ProviderMessageEntity.putAt(
        {
          organizationId: org.organizationId,
          provider: String(delivered.provider),
          providerMessageId: String(delivered.providerMessageId),
        },
        { messageId: delivered.id },
      ),
    );
    const sentEvent = (await messageEvents(org, { eventType: "MessageSent" })).find(
      (event) => event.relatedEntityId === delivered.id,
    );
    await table.put(
      AnalyticsCountedEntity.putAt(
        { organizationId: org.organizationId, eventId: String(sentEvent!.id) },
        { expiresAt: Math.floor(Date.now() / 1000) + 7 * 24 * 3600 },
      ),
    );
    const before = await settledItems(org);
    const events = async () =>
      (await org.request("POST", "/events/all/my", { body: {} })).body.items.map((event: { id: string }) => event.id);
    const eventIds = await events();
    expect(eventIds.length).toBeGreaterThan(0);
    expect(new Set(before.map((item) => item.entity))).toEqual(new Set(movedEntities));
    const listed = async (path: string) =>
      (await org.request("POST", path, { body: {} })).body.items.map((item: { id: string }) => item.id);
    const numberIds = await listed("/phone-numbers/all/my");
    expect(numberIds.length).toBeGreaterThan(0);
    const automationIds = await listed("/automations/all/my");
    expect(automationIds).toContain(automation.id);
    const health = async () =>
      Promise.all(
        numberIds.map(
          async (id: string) => (await org.request("GET", `/phone-numbers/${id}/health`)).body.finalOutcomes,
        ),
      );
    const outcomes = await health();
    expect(outcomes.some((count: number) => count > 0)).toBe(true);
    // The text's hold came from a shard of the well-funded trial wallet: the wallet is its item and its shards.
    const wallet = (await org.request("GET", "/billing/wallet")).body;
    const ledger = async (orderBy = "createdAt") =>
      (
        await org.request("POST", "/billing/ledger/all/my", {
          body: { orderBy: [{ field: orderBy, direction: "desc" }] },
        })
      ).body.items.map((entry: { id: string }) => entry.id);
    const ledgerIds = await ledger();
    const ledgerByAmount = await ledger("amount");
    expect(ledgerIds.length).toBeGreaterThan(1);
    const day = new Date().toISOString().slice(0, 10);
    const usage = async () => (await org.request("GET", `/billing/usage?from=${day}&to=${day}`)).body.total;
    const used = await usage();
    expect(used.count).toBeGreaterThan(0);

    await toOldLayout(before);
    expect((await org.request("GET", `/leads/${lead.body.id}`)).status).toBe(404);
    expect((await org.request("GET", `/messages/${text.body.id}`)).status).toBe(404);
    expect((await org.request("POST", "/leads/all/my", { body: {} })).body.items).toEqual([]);
    expect((await org.request("GET", `/calls/${call.id}`)).status).toBe(404);
    expect(await callLog()).toEqual([]);
    expect(await numberCalls()).toEqual([]);
    expect((await org.request("GET", `/conversations/${conversationId}`)).status).toBe(404);
    expect(await conversations()).toEqual([]);
    expect(await listed("/phone-numbers/all/my")).toEqual([]);
    expect(await listed("/automations/all/my")).toEqual([]);
    expect(await ledger()).toEqual([]);
    expect((await usage()).count).toBe(0);
    // The automation itself is at its old key too: neither it nor its runs' list is found.
    expect((await org.request("GET", `/automations/${automation.id}`)).status).toBe(404);

    const first = await migrateKeys(org.organizationId);
    expect(first.moved).toBe(before.length);
    const after = await movedItems(org);
    const keyed = (items: Record<string, unknown>[]) =>
      items.map((item) => `${String(item.pk)}|${String(item.sk)}`).sort();
    expect(keyed(after)).toEqual(keyed(before));
    // Every index key is as the code writes it today: derived again, the sharded ones included, or kept.
    const indexKeys = (item: Record<string, unknown>) =>
      Object.fromEntries(Object.entries(item).filter(([name]) => /^gsi\d+(pk|sk)$/.test(name)));
    for (const item of after) {
      const written = before.find((earlier) => earlier.sk === item.sk)!;
      expect(indexKeys(item), String(item.sk)).toEqual(indexKeys(written));
    }

    const read = await org.request("GET", `/leads/${lead.body.id}`);
    expect(read.status).toBe(200);
    expect(
      (await org.request("POST", "/leads/all/my", { body: {} })).body.items.map((l: { id: string }) => l.id),
    ).toEqual([lead.body.id]);
    expect(await events()).toEqual(eventIds);
    expect((await org.request("GET", `/messages/${text.body.id}`)).body).toEqual(delivered);
    expect((await listRuns(org, automation.id)).map((run) => run.id)).toEqual([waiting.id]);
    // The call reads, is in the log (its sharded index entry derived again) and in its number's calls.
    expect((await org.request("GET", `/calls/${call.id}`)).body).toEqual(call);
    expect(await callLog()).toEqual([call.id]);
    expect(await numberCalls()).toEqual([call.id]);
    // The conversation reads and is listed by creation (its sharded entry derived again).
    expect((await org.request("GET", `/conversations/${conversationId}`)).status).toBe(200);
    expect(await conversations()).toEqual(conversationIds);
    // The numbers and automations read and are listed by creation again (their entries derived), and each number's
    // health counts its outcomes from its own partition.
    expect(await listed("/phone-numbers/all/my")).toEqual(numberIds);
    expect(await listed("/automations/all/my")).toEqual(automationIds);
    expect(await health()).toEqual(outcomes);
    // The wallet sums its shards from their own partitions again: not a unit lost or added.
    expect((await org.request("GET", "/billing/wallet")).body).toEqual(wallet);
    // The ledger is listed by creation and by amount (its sharded entries derived again); usage sums every part's.
    expect(await ledger()).toEqual(ledgerIds);
    expect(await ledger("amount")).toEqual(ledgerByAmount);
    expect(await usage()).toEqual(used);
    // The run is among its automation's active ones again: disabling the automation cancels it.
    const disabled = await org.request("PUT", `/automations/${automation.id}`, { body: { ...waits, enabled: false } });
    expect(disabled.status).toBe(200);
    expect((await waitForRun(org, automation.id, waiting.id, (run) => run.status === "Canceled")).error).toBe(
      "The automation was disabled.",
    );
    // The counted lead's facts are read by the report's window edges from their sharded index again.
    const facts = await leadFacts(org.organizationId, { start: Date.now() - 3_600_000, end: Date.now() + 60_000 });
    expect(facts.map((fact) => fact.leadId)).toEqual([lead.body.id]);
    const byName = await queryAll(LeadEntity.query("byName", { organizationId: org.organizationId }));
    expect(byName.map((item) => item.id)).toEqual([lead.body.id]);
    // The moved claim still dedupes: the same phone from the same seller is the same lead.
    const again = await intakeByBody(source, { FirstName: "Old", Phone: phone, Price: "2" });
    expect(again.body.id ?? again.body.leadId).toBeDefined();

    // A new text to the same contact finds the conversation through its moved pointer: no second conversation.
    const later = await send(org, { to: contact, body: "after the move" });
    expect((await waitForMessage(org, later.body.id)).conversationId).toBe(conversationId);
    expect(await conversations()).toEqual(conversationIds);

    expect(await migrateKeys(org.organizationId)).toMatchObject({ moved: 0 });
  }, 300_000);

  it("merges analytics rollups and histograms stored in the organization's partition into their level's, adding to what was counted there since", async () => {
    const org = await newOrganization();
    const organizationId = org.organizationId;
    const hour = "2020-01-06T10";
    const oldPartition = keys.organization(organizationId).pk;
    const oldRollup = (sk: string, attributes: Record<string, unknown>) =>
      db().send(new PutCommand({ TableName: tableName(), Item: { pk: oldPartition, sk, ...attributes } }));
    // Stored before issue 27: an hour's counters and histogram, and a day item with more counters than one update takes.
    await oldRollup(`ANALYTICS#H#${hour}`, { entity: "AnalyticsRollup", leads: 2, "ls#src1": 2 });
    await oldRollup(`ANALYTICS#H#${hour}#HIST`, {
      entity: "AnalyticsHistogram",
      hist: packHistogram({ "h#3": 2 }),
      hv: 4,
    });
    const many = Object.fromEntries(Array.from({ length: 150 }, (_, index) => [`ls#source${index}`, index + 1]));
    await oldRollup("ANALYTICS#D#2020-01-06", { entity: "AnalyticsRollup", leads: 7, ...many });
    // Counted at the new keys since the deploy, as the aggregator writes them.
    await transact(
      new Transaction()
        .update("rollup", rollupUpdate(organizationId, "H", hour, { leads: 1 }).Update!)
        .update(
          "histogram",
          histogramUpdate(organizationId, "H", hour, { hist: { "h#3": 1, "h#9": 1 }, readVersion: undefined }).Update!,
        ),
    );

    expect(await migrateKeys(organizationId)).toMatchObject({ moved: 3 });
    for (const sk of [`ANALYTICS#H#${hour}`, `ANALYTICS#H#${hour}#HIST`, "ANALYTICS#D#2020-01-06"])
      expect((await table.get({ Key: { pk: oldPartition, sk } })).Item, sk).toBeUndefined();
    const at = (level: string, sk: string) =>
      table.get({ Key: { pk: `${oldPartition}#ANALYTICS#${level}`, sk }, ConsistentRead: true });
    expect((await at("H", `ANALYTICS#H#${hour}`)).Item).toMatchObject({
      entity: "AnalyticsRollup",
      leads: 3,
      "ls#src1": 2,
    });
    const histogram = (await at("H", `ANALYTICS#H#${hour}#HIST`)).Item;
    expect(parseHistogram(histogram).h).toEqual({ 3: 3, 9: 1 });
    expect(histogram).toMatchObject({ entity: "AnalyticsHistogram", hv: 5 });
    expect((await at("D", "ANALYTICS#D#2020-01-06")).Item).toMatchObject({
      entity: "AnalyticsRollup",
      leads: 7,
      ...many,
    });
    // A report reads the merged hour.
    const figures = await rangeFigures(
      organizationId,
      { start: Date.parse(`${hour}:00:00.000Z`), end: Date.parse(`${hour}:00:00.000Z`) + 3_600_000 },
      "Hour",
    );
    expect(figures.totals.leads).toBe(3);
    expect(figures.histogram.h).toEqual({ 3: 3, 9: 1 });

    expect(await migrateKeys(organizationId)).toMatchObject({ moved: 0 });
    expect((await at("H", `ANALYTICS#H#${hour}`)).Item).toMatchObject({ leads: 3 });
  }, 120_000);

  it("adds an old wallet shard's and usage day's counters to what was written at their new keys in the window, so money and usage stay exact", async () => {
    const org = await newOrganization();
    const organizationId = org.organizationId;
    const shard = WalletShardEntity.key({ organizationId, shard: 3 });
    const day = UsageDayEntity.key({ organizationId, day: "2026-01-02", walletPart: "3" });
    const atOldKey = (key: { sk: string }) => ({ pk: keys.organization(organizationId).pk, sk: key.sk });
    await table.put({
      Item: { ...atOldKey(shard), entity: "WalletShard", balanceUnits: 500, reservedUnits: 100, availableUnits: 400 },
    });
    await table.put({
      Item: {
        ...atOldKey(day),
        entity: "UsageDay",
        day: "2026-01-02",
        "count#SmsSegments": 2,
        "units#SmsSegments": 200,
      },
    });
    // Since the deploy, at the new keys: a hold of 50 taken from the shard, a charge of 100 counted on its day.
    await table.put({
      Item: { ...shard, entity: "WalletShard", balanceUnits: 0, reservedUnits: 50, availableUnits: -50 },
    });
    await table.put({
      Item: { ...day, entity: "UsageDay", day: "2026-01-02", "count#SmsSegments": 1, "units#SmsSegments": 100 },
    });

    expect(await migrateKeys(organizationId)).toMatchObject({ moved: 2 });
    expect(await getItem(shard, { consistent: true })).toMatchObject({
      entity: "WalletShard",
      balanceUnits: 500,
      reservedUnits: 150,
      availableUnits: 350,
    });
    expect(await getItem(day, { consistent: true })).toMatchObject({
      entity: "UsageDay",
      "count#SmsSegments": 3,
      "units#SmsSegments": 300,
    });
    expect(await getItem(atOldKey(shard), { consistent: true })).toBeUndefined();
    expect(await getItem(atOldKey(day), { consistent: true })).toBeUndefined();
    expect(await migrateKeys(organizationId)).toMatchObject({ moved: 0 });
  }, 60_000);

  it("adds a rollup's counters once when two runs move it at the same time (an organization's run beside the whole table's)", async () => {
    const org = await newOrganization();
    const oldPartition = keys.organization(org.organizationId).pk;
    const many = Object.fromEntries(Array.from({ length: 200 }, (_, index) => [`ls#source${index}`, index + 1]));
    await db().send(
      new PutCommand({
        TableName: tableName(),
        Item: { pk: oldPartition, sk: "ANALYTICS#D#2020-01-07", entity: "AnalyticsRollup", leads: 9, ...many },
      }),
    );
    // A run that finds a chunk taken off since it read the item stops (its condition fails); running again finishes.
    await Promise.allSettled([migrateKeys(org.organizationId), migrateKeys(org.organizationId)]);
    await migrateKeys(org.organizationId);
    const moved = await table.get({
      Key: { pk: `${oldPartition}#ANALYTICS#D`, sk: "ANALYTICS#D#2020-01-07" },
      ConsistentRead: true,
    });
    expect(moved.Item).toMatchObject({ entity: "AnalyticsRollup", leads: 9, ...many });
    expect((await table.get({ Key: { pk: oldPartition, sk: "ANALYTICS#D#2020-01-07" } })).Item).toBeUndefined();
  }, 120_000);
  it("moves suppression entries to partitions of their own and the price list and consent settings to their copies: an old opt-out still blocks the next send, its prices and caps still apply", async () => {
    const org = await newOrganization();
    const organizationId = org.organizationId;
    const oldPartition = keys.organization(organizationId).pk;
    await readyToText(org);
    const suppressed = randomNumber();
    expect((await org.request("POST", "/suppressions", { body: { phoneNumber: suppressed } })).status).toBe(201);
    await Billing.setPrices(organizationId, { smsSegment: "0.0500" });
    const caps = { frequencyCaps: { smsPerDay: 3, callsPerDay: 2 }, trustedForm: { apiKey: "tf-key-123456" } };
    expect((await org.request("PUT", "/consent/settings", { body: caps })).status).toBe(200);
    const listed = async () =>
      (await org.request("POST", "/suppressions/all/my", { body: {} })).body.items.map(
        (entry: { phoneNumber: string }) => entry.phoneNumber,
      );
    const byNumber = async () =>
      (
        await org.request("POST", "/suppressions/all/my", {
          body: { orderBy: [{ field: "phoneNumber", direction: "asc" }] },
        })
      ).body.items.map((entry: { phoneNumber: string }) => entry.phoneNumber);
    const settings = async () => (await org.request("GET", "/consent/settings")).body;
    const prices = async () => (await org.request("GET", "/billing/wallet")).body.prices;
    expect(await listed()).toEqual([suppressed]);
    expect(await byNumber()).toEqual([suppressed]);
    const storedSettings = await settings();
    expect(storedSettings.frequencyCaps).toEqual(caps.frequencyCaps);
    expect((await prices()).smsSegment).toBe("0.0500");

    // As stored before: the entry in the organization's partition (no number-ordered entry), each setting one item.
    const [entry] = await scannedOrganizationItems(org, ["Suppression"]);
    const { gsi5pk: _pk, gsi5sk: _sk, ...oldEntry } = entry!;
    await toOldLayout([oldEntry]);
    await settingsToOldLayout(organizationId);
    // Its creation entry names its old key (listed by creation still), but it is not at the key a send reads.
    expect(await byNumber()).toEqual([]);
    expect((await settings()).frequencyCaps).toEqual({ smsPerDay: null, callsPerDay: null });
    expect((await prices()).smsSegment).toBe("0.0100");

    expect(await migrateKeys(organizationId)).toMatchObject({ moved: 3 });
    expect(await scannedOrganizationItems(org, ["Suppression"])).toEqual([entry]);
    expect(await listed()).toEqual([suppressed]);
    expect(await byNumber()).toEqual([suppressed]);
    expect(await settings()).toEqual(storedSettings);
    expect((await prices()).smsSegment).toBe("0.0500");
    for (const sk of ["SETTINGS#PRICES", "SETTINGS#CONSENT"]) {
      expect(await getItem({ pk: oldPartition, sk }, { consistent: true }), sk).toBeUndefined();
      for (let index = 0; index < settingsCopies; index++)
        expect(await getItem(copyKey(organizationId, sk, index), { consistent: true }), sk).toBeDefined();
    }
    // The moved entry stops the next send to its number.
    const blocked = await send(org, { to: suppressed, body: "after the move" });
    expect(await waitForMessage(org, blocked.body.id)).toMatchObject({
      status: "Blocked",
      complianceAction: "Suppressed",
    });
    expect(await migrateKeys(organizationId)).toMatchObject({ moved: 0 });

    // Settings changed since the deploy (every copy written) win over an old item left behind, which is dropped.
    await table.put({
      Item: {
        pk: oldPartition,
        sk: "SETTINGS#CONSENT",
        entity: "ConsentSettings",
        frequencyCaps: { smsPerDay: 1, callsPerDay: 1 },
      },
    });
    expect(await migrateKeys(organizationId)).toMatchObject({ moved: 1 });
    expect(await settings()).toEqual(storedSettings);
    expect(await getItem({ pk: oldPartition, sk: "SETTINGS#CONSENT" }, { consistent: true })).toBeUndefined();
  }, 120_000);

  it("a change of consent settings or prices after the deploy, before the move, starts from the old item: its credentials, caps and earlier overrides are kept through the move", async () => {
    const org = await newOrganization();
    const organizationId = org.organizationId;
    const body = {
      trustedForm: { apiKey: "tf-key-123456" },
      jornaya: { accountCode: "jornaya-account" },
      frequencyCaps: { smsPerDay: 3, callsPerDay: 2 },
    };
    expect((await org.request("PUT", "/consent/settings", { body })).status).toBe(200);
    const overridden = await admin("billing-prices", "--org", organizationId, "--sms-segment", "0.05");
    expect(overridden.output.prices.smsSegment).toBe("0.0500");
    await settingsToOldLayout(organizationId);

    // Deployed, not yet migrated: the owner names only the Jornaya account, the operator only the call minute.
    const changed = await org.request("PUT", "/consent/settings", {
      body: { jornaya: { accountCode: "jornaya-other" } },
    });
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({
      trustedForm: { apiKeyPreview: "tf-…" },
      jornaya: { accountCodePreview: "jor…" },
      frequencyCaps: body.frequencyCaps,
    });
    const repriced = await admin("billing-prices", "--org", organizationId, "--call-minute", "0.03");
    expect(repriced.output.prices).toMatchObject({ smsSegment: "0.0500", callMinute: "0.0300" });

    // The copies written in the window win; the old items are dropped, and nothing they held is lost.
    expect(await migrateKeys(organizationId)).toMatchObject({ moved: 2 });
    for (const sk of ["SETTINGS#PRICES", "SETTINGS#CONSENT"])
      expect(await getItem({ pk: keys.organization(organizationId).pk, sk }, { consistent: true })).toBeUndefined();
    const settings = (await org.request("GET", "/consent/settings")).body;
    expect(settings).toMatchObject({ trustedForm: { apiKeyPreview: "tf-…" }, frequencyCaps: body.frequencyCaps });
    expect(await ConsentSettingsStore.credentials(organizationId)).toEqual({
      trustedFormApiKey: "tf-key-123456",
      jornayaAccountCode: "jornaya-other",
    });
    expect((await org.request("GET", "/billing/wallet")).body.prices).toMatchObject({
      smsSegment: "0.0500",
      callMinute: "0.0300",
    });
  }, 120_000);
});
