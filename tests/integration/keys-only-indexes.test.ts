import { beforeAll, describe, expect, it } from "vitest";
import { table, writeItems } from "#core/db/items";
import { keys } from "#core/db/keys";
import { queryCount } from "#core/db/query";
import { eventItem, toEventRecord } from "#core/events/index";
import { shardOf } from "#core/db/entity";
import { eventListShards } from "#core/db/entities/events";
import { newId } from "#core/shared/ids";
import { table as definition } from "#stacks/definitions";
import { applyStackEnv } from "#tests/helpers/stack";

/**
 * Issue 16: the list indexes hold only keys (stacks/definitions.ts), so a query
 * on them is answered by core/db with the table's items, in the index's order,
 * and filters run in memory with the semantics of a FilterExpression.
 */
describe("queries on keys-only indexes", () => {
  const organizationId = newId();
  const byType = keys.eventsByType(organizationId, "WebhookEndpointDisabled");
  // Events by type are write-sharded (issue 27): the test reads one shard, holding only events written to it.
  const query = {
    index: "eventsByType" as const,
    KeyConditionExpression: "gsi7pk = :pk",
    ExpressionAttributeValues: { ":pk": `${byType.gsi7pk}#0` },
  };
  const start = Date.parse("2026-11-01T00:00:00Z");
  let ids: string[] = [];

  beforeAll(async () => {
    applyStackEnv();
    const events: ReturnType<typeof eventItem>[] = [];
    while (events.length < 12) {
      const index = events.length;
      const written = eventItem(organizationId, {
        eventType: "WebhookEndpointDisabled",
        eventCategory: index % 3 === 0 ? "Rare" : "Common",
        description: `event ${index}`,
        createdAt: new Date(start + index * 1000).toISOString(),
      });
      if (shardOf(written.event.id, eventListShards) === 0) events.push(written);
    }
    ids = events.map(({ event }) => event.id);
    await writeItems(events.map(({ item }) => ({ PutRequest: { Item: item } })));
  });

  it("the list indexes are declared KEYS_ONLY and their queries answer whole items in index order", async () => {
    expect(
      ["gsi1", "gsi4", "gsi5", "gsi6", "gsi7"].map(
        (name) => definition.globalIndexes[name as keyof typeof definition.globalIndexes].projection,
      ),
    ).toEqual(Array(5).fill("KEYS_ONLY"));
    const newestFirst = await table.query({ ...query, ScanIndexForward: false });
    expect(newestFirst.Items!.map((item) => item.id)).toEqual([...ids].reverse());
    expect(toEventRecord(newestFirst.Items![0]!)).toMatchObject({
      eventType: "WebhookEndpointDisabled",
      eventCategory: "Common",
      description: "event 11",
    });
  });

  it("filters in memory like a FilterExpression: Limit counts what was read, Count what was kept", async () => {
    const page = await table.query({ ...query, Limit: 6, where: (item) => item.eventCategory === "Rare" });
    expect(page.Items!.map((item) => toEventRecord(item).description)).toEqual(["event 0", "event 3"]);
    expect(page).toMatchObject({ Count: 2, ScannedCount: 6 });
    expect(page.LastEvaluatedKey).toBeDefined();
    const rest = await table.query({
      ...query,
      ExclusiveStartKey: page.LastEvaluatedKey,
      where: (item) => item.eventCategory === "Rare",
    });
    expect(rest.Items!.map((item) => toEventRecord(item).description)).toEqual(["event 6", "event 9"]);
    expect(await queryCount({ ...query, where: (item) => item.eventCategory === "Rare" }, 100)).toEqual({
      count: 4,
      more: false,
    });
    expect(await queryCount(query, 100)).toEqual({ count: 12, more: false });
  });

  it("refuses a server-side filter it could not apply to key entries", async () => {
    await expect(
      table.query({
        ...query,
        FilterExpression: "eventCategory = :rare",
        ExpressionAttributeValues: { ...query.ExpressionAttributeValues, ":rare": "Rare" },
      }),
    ).rejects.toThrow(/holds only keys/);
  });
});
