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
import { intakeByBody, newSource, uniquePhone, waitForLead } from "#tests/helpers/leads";
import { newOrganization, type TestOrganization } from "#tests/helpers/stack";

/** Every item of the organization outside its own partition (its leads', events' and claims', issue 27). */
async function movedItems(org: TestOrganization) {
  const prefix = `${keys.organization(org.organizationId).pk}#`;
  const items: Record<string, unknown>[] = [];
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const page = await table.scan({
      FilterExpression: "begins_with(pk, :prefix)",
      ExpressionAttributeValues: { ":prefix": prefix },
      ExclusiveStartKey,
      ConsistentRead: true,
    });
    items.push(...(page.Items ?? []));
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  return items.filter((item) => ["Lead", "Event", "LeadClaim"].includes(String(item.entity)));
}

/**
 * Puts the organization's leads, events and claims back where the layout before issue 27 kept them: in the
 * organization's partition, under the same sort key, without the sharded index keys. The old items go in under an
 * entity no stream consumer reads and get theirs back by an update, as they were stored long ago.
 */
async function toOldLayout(items: Record<string, unknown>[]) {
  for (const item of items) {
    const old = { ...withoutKeys(item), pk: `ORG#${String(item.organizationId)}`, sk: item.sk };
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
  it("moves leads, events and claims stored in the organization's partition to their own, once", async () => {
    const org = await newOrganization();
    const source = await newSource(org);
    const phone = uniquePhone();
    const lead = await intakeByBody(source, { FirstName: "Old", Phone: phone, Price: "2" });
    await waitForLead(org, lead.body.id);
    const events = async () =>
      (await org.request("POST", "/events/all/my", { body: {} })).body.items.map((event: { id: string }) => event.id);
    const eventIds = await events();
    expect(eventIds.length).toBeGreaterThan(0);
    const before = await movedItems(org);
    expect(before.map((item) => item.entity)).toEqual(expect.arrayContaining(["Lead", "Event", "LeadClaim"]));

    await toOldLayout(before);
    expect((await org.request("GET", `/leads/${lead.body.id}`)).status).toBe(404);
    expect((await org.request("POST", "/leads/all/my", { body: {} })).body.items).toEqual([]);

    const first = await migrateKeys(org.organizationId);
    expect(first.moved).toBe(before.length);
    const after = await movedItems(org);
    const keyed = (items: Record<string, unknown>[]) =>
      items.map((item) => `${String(item.pk)}|${String(item.sk)}`).sort();
    expect(keyed(after)).toEqual(keyed(before));
    // Every index key is derived again, the sharded ones included.
    for (const item of after) {
      const expected =
        item.entity === "Lead"
          ? LeadEntity.item(withoutKeys(item) as never)
          : item.entity === "Event"
            ? EventEntity.item(withoutKeys(item) as never)
            : item;
      for (const name of Object.keys(expected).filter((name) => /^gsi\d+(pk|sk)$/.test(name)))
        expect(item[name], `${String(item.sk)} ${name}`).toBe(expected[name]);
    }

    const read = await org.request("GET", `/leads/${lead.body.id}`);
    expect(read.status).toBe(200);
    expect(
      (await org.request("POST", "/leads/all/my", { body: {} })).body.items.map((l: { id: string }) => l.id),
    ).toEqual([lead.body.id]);
    expect(await events()).toEqual(eventIds);
    const byName = await queryAll(LeadEntity.query("byName", { organizationId: org.organizationId }));
    expect(byName.map((item) => item.id)).toEqual([lead.body.id]);
    // The moved claim still dedupes: the same phone from the same seller is the same lead.
    const again = await intakeByBody(source, { FirstName: "Old", Phone: phone, Price: "2" });
    expect(again.body.id ?? again.body.leadId).toBeDefined();

    expect(await migrateKeys(org.organizationId)).toMatchObject({ moved: 0 });
  }, 300_000);
});
