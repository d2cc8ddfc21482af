import { DeleteCommand, PutCommand } from "@aws-sdk/lib-dynamodb";
import { describe, expect, it } from "vitest";
import { db, tableName } from "#core/db/client";
import { EventEntity } from "#core/db/entities/events";
import { LeadEntity } from "#core/db/entities/leads";
import { withoutKeys } from "#core/db/indexes";
import { keys } from "#core/db/keys";
import { queryAll } from "#core/db/query";
import { table } from "#core/db/items";
import { migrateKeys } from "#core/db/migrate-keys";
import { readyToText } from "#tests/helpers/automations";
import { randomNumber, send, waitForMessage } from "#tests/helpers/messaging";
import { organizationItems } from "#tests/helpers/partitions";
import { intakeByBody, newSource, uniquePhone, waitForLead } from "#tests/helpers/leads";
import { newOrganization, type TestOrganization } from "#tests/helpers/stack";

/** The entities issue 27 keyed apart, in partitions of their own. */
const movedEntities = ["Lead", "Event", "LeadClaim", "Message", "ProviderMessage"];

/** Every item of the organization outside its own partition (its leads', events', claims', messages'…, issue 27). */
async function movedItems(org: TestOrganization) {
  const partition = keys.organization(org.organizationId).pk;
  return (await organizationItems(org, movedEntities)).filter((item) => item.pk !== partition);
}

/**
 * The index keys an item in the layout before issue 27 did not have: a lead's and an event's were all derived again
 * (sharded since); a claim has none, and a message's and its pointer's (its conversation, its due entry) are as they
 * were.
 */
const newIndexKeys = (item: Record<string, unknown>) =>
  ["Lead", "Event"].includes(String(item.entity)) ? withoutKeys(item) : item;

/**
 * Puts the organization's moved items back where the layout before issue 27 kept them: in the organization's
 * partition, under the same sort key, without the index keys that layout lacked. The old items go in under an
 * entity no stream consumer reads and get theirs back by an update, as they were stored long ago.
 */
async function toOldLayout(items: Record<string, unknown>[]) {
  for (const item of items) {
    const old = { ...newIndexKeys(item), pk: keys.organization(String(item.pk).split("#")[1]!).pk, sk: item.sk };
    await db().send(new PutCommand({ TableName: tableName(), Item: { ...old, entity: "Fixture" } }));
    await table.update({
      Key: { pk: old.pk, sk: old.sk },
      UpdateExpression: "SET entity = :entity",
      ExpressionAttributeValues: { ":entity": item.entity },
    });
    await db().send(new DeleteCommand({ TableName: tableName(), Key: { pk: item.pk, sk: item.sk } }));
  }
}

describe("migrate-keys", () => {
  it("moves leads, events, claims and messages stored in the organization's partition to their own, once", async () => {
    const org = await newOrganization();
    const source = await newSource(org);
    const phone = uniquePhone();
    const lead = await intakeByBody(source, { FirstName: "Old", Phone: phone, Price: "2" });
    await waitForLead(org, lead.body.id);
    await readyToText(org);
    const text = await send(org, { to: randomNumber(), body: "stored long ago" });
    expect(text.status).toBe(202);
    const delivered = await waitForMessage(org, text.body.id);
    const events = async () =>
      (await org.request("POST", "/events/all/my", { body: {} })).body.items.map((event: { id: string }) => event.id);
    const eventIds = await events();
    expect(eventIds.length).toBeGreaterThan(0);
    const before = await movedItems(org);
    expect(new Set(before.map((item) => item.entity))).toEqual(new Set(movedEntities));

    await toOldLayout(before);
    expect((await org.request("GET", `/leads/${lead.body.id}`)).status).toBe(404);
    expect((await org.request("GET", `/messages/${text.body.id}`)).status).toBe(404);
    expect((await org.request("POST", "/leads/all/my", { body: {} })).body.items).toEqual([]);

    const first = await migrateKeys(org.organizationId);
    expect(first.moved).toBe(before.length);
    const after = await movedItems(org);
    const keyed = (items: Record<string, unknown>[]) =>
      items.map((item) => `${String(item.pk)}|${String(item.sk)}`).sort();
    expect(keyed(after)).toEqual(keyed(before));
    // Every index key is derived again, the sharded ones included; the others are kept.
    const indexKeys = (item: Record<string, unknown>) =>
      Object.fromEntries(Object.entries(item).filter(([name]) => /^gsi\d+(pk|sk)$/.test(name)));
    for (const item of after) {
      const expected =
        item.entity === "Lead"
          ? LeadEntity.item(withoutKeys(item) as never)
          : item.entity === "Event"
            ? EventEntity.item(withoutKeys(item) as never)
            : before.find((earlier) => earlier.sk === item.sk)!;
      expect(indexKeys(item), String(item.sk)).toEqual(indexKeys(expected));
    }

    const read = await org.request("GET", `/leads/${lead.body.id}`);
    expect(read.status).toBe(200);
    expect(
      (await org.request("POST", "/leads/all/my", { body: {} })).body.items.map((l: { id: string }) => l.id),
    ).toEqual([lead.body.id]);
    expect(await events()).toEqual(eventIds);
    expect((await org.request("GET", `/messages/${text.body.id}`)).body).toEqual(delivered);
    const byName = await queryAll(LeadEntity.query("byName", { organizationId: org.organizationId }));
    expect(byName.map((item) => item.id)).toEqual([lead.body.id]);
    // The moved claim still dedupes: the same phone from the same seller is the same lead.
    const again = await intakeByBody(source, { FirstName: "Old", Phone: phone, Price: "2" });
    expect(again.body.id ?? again.body.leadId).toBeDefined();

    expect(await migrateKeys(org.organizationId)).toMatchObject({ moved: 0 });
  }, 300_000);
});
