import { UpdateCommand } from "@aws-sdk/lib-dynamodb";
import { describe, expect, it } from "vitest";
import { db, tableName } from "#core/db/client";
import { keys } from "#core/db/keys";
import { backfillListIndexes } from "#core/db/backfill-list-indexes";
import { readyToText } from "#tests/helpers/automations";
import { intakeByBody, newSource, uniquePhone, waitForLead } from "#tests/helpers/leads";
import { randomNumber, send, waitForMessage } from "#tests/helpers/messaging";
import { newOrganization } from "#tests/helpers/stack";

/** Removes the list index attributes, as an item stored before the indexes existed has none. */
async function stripListIndexes(key: { pk: string; sk: string }, names: string[]) {
  await db().send(
    new UpdateCommand({ TableName: tableName(), Key: key, UpdateExpression: `REMOVE ${names.join(", ")}` }),
  );
}

describe("backfill-list-indexes", () => {
  it("puts items stored before the list indexes back into the index-backed lists, and a second run changes nothing", async () => {
    const org = await newOrganization();
    const source = await newSource(org);
    const [older, newer] = [
      await intakeByBody(source, { FirstName: "Zed", Email: `zed-${Date.now()}@example.com`, Price: "3" }),
      await intakeByBody(source, { FirstName: "Amy", Phone: uniquePhone(), Price: "1" }),
    ];
    for (const lead of [older, newer]) await waitForLead(org, lead.body.id);
    const phone = uniquePhone();
    expect((await org.request("POST", "/suppressions", { body: { phoneNumber: phone } })).status).toBeLessThan(300);
    // A conversation, in a partition of its own with no organizationId stored: the backfill must find its
    // organization from its key, or it would rewrite its list entries under a wrong one.
    await readyToText(org);
    const text = await send(org, { to: randomNumber(), body: "hello" });
    const conversationId = String((await waitForMessage(org, text.body.id)).conversationId);
    const conversations = async () =>
      (await org.request("POST", "/conversations/all/my", { body: {} })).body.items.map((c: { id: string }) => c.id);
    expect(await conversations()).toEqual([conversationId]);

    await stripListIndexes(keys.lead(org.organizationId, older.body.id), [
      "gsi4pk",
      "gsi4sk",
      "gsi5pk",
      "gsi5sk",
      "gsi6pk",
      "gsi6sk",
      "gsi7pk",
      "gsi7sk",
    ]);
    await stripListIndexes(keys.suppression(org.organizationId, phone), ["gsi4pk", "gsi4sk"]);
    const byName = async () =>
      (
        await org.request("POST", "/leads/all/my", { body: { orderBy: [{ field: "name", direction: "asc" }] } })
      ).body.items.map((lead: { id: string }) => lead.id);
    const suppressed = async () =>
      (await org.request("POST", "/suppressions/all/my", { body: {} })).body.items.map(
        (entry: { phoneNumber: string }) => entry.phoneNumber,
      );
    expect(await byName()).toEqual([newer.body.id]);
    expect(await suppressed()).toEqual([]);

    const first = await backfillListIndexes(org.organizationId);
    expect(first.updated).toBe(2);
    expect(await byName()).toEqual([newer.body.id, older.body.id]);
    expect(await suppressed()).toEqual([phone]);
    expect(await conversations()).toEqual([conversationId]);
    const processed = await org.request("POST", "/leads/all/my", {
      body: { filters: [{ field: "processingStatus", value: "Processed" }], includeCount: true },
    });
    expect(processed.body.totalCount).toBe(2);
    expect((await backfillListIndexes(org.organizationId)).updated).toBe(0);
  }, 300_000);
});
