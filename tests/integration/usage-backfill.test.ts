import { describe, expect, it } from "vitest";
import * as BillingHistory from "#core/billing/history";
import { table } from "#core/db/items";
import { queryAll } from "#core/db/query";
import { LedgerEntryEntity, WalletShardEntity } from "#core/db/entities/billing";
import { WALLET_SHARDS } from "#core/billing/wallet-shards";
import { usageItems } from "#core/billing/usage";
import { ledgerChargesIn } from "#tests/helpers/billing";
import { addNumber, randomNumber, send, waitForMessage } from "#tests/helpers/messaging";
import { newOrganization, type TestOrganization } from "#tests/helpers/stack";

const dayMs = 24 * 60 * 60 * 1000;
const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** Usage of the days around now, and the ledger's charges of the same period. */
async function usageAndLedger(org: TestOrganization) {
  const answer = await org.request(
    "GET",
    `/billing/usage?from=${dayOf(Date.now() - dayMs)}&to=${dayOf(Date.now() + dayMs)}`,
  );
  expect(answer.status).toBe(200);
  const ledger = await ledgerChargesIn(org, answer.body);
  return { usage: answer.body, ledger: { count: ledger.count, amount: ledger.amount } };
}

async function textCharged(org: TestOrganization, body: string) {
  const sent = await send(org, { to: randomNumber(), body });
  await waitForMessage(org, sent.body.id, (message) => message.billingStatus === "Charged");
}

/**
 * Puts the organization's charges back as the version before usage counting stored them: ledger entries without
 * `usageCounted`, and no usage day items.
 */
async function asBeforeUsageCounting(org: TestOrganization) {
  // Ledger entries and usage days are each in partitions of their own (issue 27): read through their access patterns
  // (a scan for the organization's items takes minutes on the table a full test run leaves).
  for (const entry of await queryAll(LedgerEntryEntity.query("byCreation", { organizationId: org.organizationId })))
    await table.update({ Key: { pk: entry.pk, sk: entry.sk }, UpdateExpression: "REMOVE usageCounted" });
  const days = { from: dayOf(Date.now() - 2 * dayMs), to: dayOf(Date.now() + dayMs) };
  for (const day of await usageItems(org.organizationId, days))
    if (day.pk) await table.delete({ Key: { pk: day.pk, sk: day.sk } });
  // Charges on a shard are counted on the shard itself (issue 27, h40): its counters go too.
  for (let shard = 0; shard < WALLET_SHARDS; shard++) {
    const key = WalletShardEntity.key({ organizationId: org.organizationId, shard });
    const { Item: stored } = await table.get({ Key: key, ConsistentRead: true });
    const names = Object.keys(stored ?? {}).filter((name) => /^(count|quantity|units)#|^usageDay$/.test(name));
    if (names.length === 0) continue;
    await table.update({
      Key: key,
      UpdateExpression: `REMOVE ${names.map((_, at) => `#n${at}`).join(", ")}`,
      ExpressionAttributeNames: Object.fromEntries(names.map((name, at) => [`#n${at}`, name])),
    });
  }
}

describe("backfill-usage (npm run admin -- backfill-usage)", () => {
  it("counts the charges written before usage counting, once however often it runs, beside the charges counted since", async () => {
    const org = await newOrganization();
    await addNumber(org); // a phone number fee
    await textCharged(org, "First");
    await textCharged(org, "Second, a little longer");
    expect((await usageAndLedger(org)).usage.total.count).toBe(3);

    await asBeforeUsageCounting(org);
    const before = await usageAndLedger(org);
    expect(before.usage.total).toEqual({ count: 0, amount: "0.0000" });
    expect(before.ledger.count).toBe(3);

    const backfilled = await BillingHistory.backfillUsage(org.organizationId);
    expect(backfilled.charges).toBe(3);
    const after = await usageAndLedger(org);
    expect(after.usage.total).toEqual(after.ledger);
    const counts = Object.fromEntries(after.usage.kinds.map((kind: any) => [kind.kind, kind.count]));
    expect(counts).toMatchObject({ SmsSegments: 2, PhoneNumberMonthly: 1 });

    // A second run recomputes the same figures; a charge made since is counted as it happens, not again here.
    expect(await BillingHistory.backfillUsage(org.organizationId)).toEqual(backfilled);
    await textCharged(org, "Third");
    expect(await BillingHistory.backfillUsage(org.organizationId)).toEqual(backfilled);
    const later = await usageAndLedger(org);
    expect(later.usage.total.count).toBe(4);
    expect(later.usage.total).toEqual(later.ledger);
  });
});
