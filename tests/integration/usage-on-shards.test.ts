import { describe, expect, it } from "vitest";
import { WALLET_SHARDS } from "#core/billing/wallet-shards";
import { UsageDayEntity, WalletShardEntity } from "#core/db/entities/billing";
import { billingKeys } from "#core/db/keys/billing";
import { getItemsAt, table } from "#core/db/items";
import { queryAll } from "#core/db/query";
import { ledgerChargesIn } from "#tests/helpers/billing";
import { addNumber, randomNumber, send, waitForMessage } from "#tests/helpers/messaging";
import { newOrganization, type TestOrganization } from "#tests/helpers/stack";

// Usage counted on the wallet shard a charge's settlement writes (issue 27, h40; core/billing/usage.ts).

const dayMs = 24 * 60 * 60 * 1000;
const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const COUNTER = /^(count|quantity|units)#/;

async function usage(org: TestOrganization, from: string, to = from) {
  const answer = await org.request("GET", `/billing/usage?from=${from}&to=${to}`);
  expect(answer.status).toBe(200);
  return answer.body;
}

const sms = (answer: any) => answer.kinds.find((kind: any) => kind.kind === "SmsSegments");

async function textCharged(org: TestOrganization, body: string) {
  const sent = await send(org, { to: randomNumber(), body });
  await waitForMessage(org, sent.body.id, (message) => message.billingStatus === "Charged");
}

/** The organization's shard items by number (undefined: never refilled). */
async function shards(org: TestOrganization) {
  const { organizationId } = org;
  const numbers = Array.from({ length: WALLET_SHARDS }, (_, shard) => shard);
  return getItemsAt(
    numbers.map((shard) => WalletShardEntity.key({ organizationId, shard })),
    { consistent: true },
  );
}

/** Every usage item stored for `walletPart` (a shard's number), any day. */
const usageDaysOf = (org: TestOrganization, walletPart: string) =>
  queryAll(
    UsageDayEntity.query("collection", { organizationId: org.organizationId, walletPart }, { consistent: true }),
  );

const counters = (item: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(item).filter(([name]) => COUNTER.test(name)));

describe("usage counted on the wallet shard", () => {
  it("counts a charge on its shard (no usage item), beside a usage item of the same day written before", async () => {
    const org = await newOrganization();
    await addNumber(org); // its fee is charged on the wallet item: a usage item as before
    const today = dayOf(Date.now());
    await textCharged(org, "First");
    const counting = (await shards(org)).flatMap((shard, number) => (shard?.usageDay === today ? [number] : []));
    expect(counting).toHaveLength(1);
    const shard = counting[0]!;
    expect(await usageDaysOf(org, String(shard))).toEqual([]);
    const stored = (await shards(org))[shard]!;
    // Well under 1 KB (a write of the shard costs one unit), even holding every kind a shard is charged for.
    expect(JSON.stringify(stored).length + 4 * 3 * 24).toBeLessThan(1024);

    const first = await usage(org, today);
    expect(first.total).toEqual(await ledgerChargesIn(org, first).then(({ count, amount }) => ({ count, amount })));
    expect(sms(first).count).toBe(1);

    // A charge counted on that shard before this version: its usage day item (old form) is summed with the shard.
    await table.put({
      Item: {
        ...billingKeys.usageDay(org.organizationId, today, String(shard)),
        entity: "UsageDay",
        day: today,
        "count#SmsSegments": 2,
        "quantity#SmsSegments": 3,
        "units#SmsSegments": 1234,
      },
    });
    const both = await usage(org, today);
    expect(sms(both).count).toBe(sms(first).count + 2);
    expect(sms(both).quantity).toBe(sms(first).quantity + 3);
    expect(both.total.count).toBe(first.total.count + 2);
  });

  it("moves a shard's counters of an earlier day to their own item at the first charge of a later day", async () => {
    const org = await newOrganization();
    await addNumber(org); // its fee is charged on the wallet item: a usage item as before
    const today = dayOf(Date.now());
    const yesterday = dayOf(Date.now() - dayMs);
    await textCharged(org, "Counted as yesterday's");
    const charged = sms(await usage(org, today));
    expect(charged.count).toBe(1);
    // As if every shard had counted yesterday (the first charge's counters with it), and nothing today yet.
    for (const [number, shard] of (await shards(org)).entries())
      if (shard)
        await table.update({
          Key: WalletShardEntity.key({ organizationId: org.organizationId, shard: number }),
          UpdateExpression: "SET usageDay = :day",
          ExpressionAttributeValues: { ":day": yesterday },
        });
    expect(sms(await usage(org, yesterday))).toEqual(charged);
    expect(sms(await usage(org, today)).count).toBe(0);

    await textCharged(org, "Today's");
    const [before, after] = [await usage(org, yesterday), await usage(org, today)];
    expect(sms(before)).toEqual(charged);
    expect(sms(after).count).toBe(1);
    // The two days together equal the ledger's charges.
    const all = await usage(org, yesterday, today);
    const ledger = await ledgerChargesIn(org, all);
    expect(all.total).toEqual({ count: ledger.count, amount: ledger.amount });

    // The shard the second charge took rolled over: yesterday's counters in an item of their own, today's on it.
    const rolled = (
      await Promise.all(Array.from({ length: WALLET_SHARDS }, (_, shard) => usageDaysOf(org, String(shard))))
    ).flat();
    expect(rolled.length).toBeGreaterThanOrEqual(1);
    expect(rolled.every((item) => item.day === yesterday && item.rollover === 0)).toBe(true);
    const now = (await shards(org)).filter((shard) => shard?.usageDay === today);
    expect(now).toHaveLength(1);
    expect(now[0]!.usageRollovers).toBe(1);
    expect(counters(now[0]!)).toMatchObject({ "count#SmsSegments": 1 });
  });

  it("leaves out a rolled-over item written after the shard was read (a rollover racing the read)", async () => {
    const org = await newOrganization();
    await addNumber(org); // its fee is charged on the wallet item: a usage item as before
    const today = dayOf(Date.now());
    await textCharged(org, "Once");
    const charged = await usage(org, today);
    const number = (await shards(org)).findIndex((shard) => shard?.usageDay === today);
    const shard = (await shards(org))[number]!;
    // The item a rollover of this shard would write next (its first): its counters are the ones the shard still
    // holds as read, so it must not be counted beside them.
    await table.put({
      Item: {
        ...billingKeys.usageRolledOver(org.organizationId, today, number, 0),
        entity: "UsageDay",
        day: today,
        walletPart: String(number),
        rollover: 0,
        ...counters(shard),
      },
    });
    expect((await usage(org, today)).total).toEqual(charged.total);
  });
});
