import { randomUUID } from "node:crypto";
import { describe, expect, it, vi } from "vitest";
import * as Billing from "#core/billing/index";
import { type LedgerEntry } from "#core/billing/index";
import { storedReservation } from "#core/billing/reservations";
import { commitCharges, shardUsage, usageItems, usageOf } from "#core/billing/usage";
import { walletChange } from "#core/billing/wallet-store";
import { db } from "#core/db/client";
import { TransactionConditionFailed } from "#core/db/transact";
import { WALLET_SHARDS } from "#core/billing/wallet-shards";
import { UsageDayEntity, WalletShardEntity } from "#core/db/entities/billing";
import { billingKeys } from "#core/db/keys/billing";
import { getItemsAt, table } from "#core/db/items";
import { queryAll } from "#core/db/query";
import { ledgerChargesIn } from "#tests/helpers/billing";
import { addNumber, randomNumber, send, waitForMessage } from "#tests/helpers/messaging";
import { afterCommand, holdWhen } from "#tests/helpers/crash";
import { applyStackEnv, newOrganization, type TestOrganization } from "#tests/helpers/stack";

// Usage counted on the wallet shard a charge's settlement writes (issue 27, h40; core/billing/usage.ts).

const dayMs = 24 * 60 * 60 * 1000;
const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const SHARD_ROLLOVERS = "usageRollovers";

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

/** `count` holds on one wallet shard, taken as a send would (the instance's funded shard): their ids and the shard. */
async function holdsOnOneShard(org: TestOrganization, count: number) {
  const holds: string[] = [];
  for (let hold = 0; hold < count; hold++) {
    const reservationId = `test-${randomUUID()}`;
    await Billing.reserve({
      organizationId: org.organizationId,
      reservationId,
      amount: "0.0100",
      relatedEntityType: "Message",
    });
    holds.push(reservationId);
  }
  const shards = await Promise.all(
    holds.map(async (id) => (await storedReservation(org.organizationId, id))?.walletShard),
  );
  expect(new Set(shards).size).toBe(1);
  expect(shards[0]).toBeTypeOf("number");
  return { holds, shard: shards[0]! };
}

const settleInput = (org: TestOrganization, reservationId: string, reason: "SmsSegments" | "CallMinutes") => ({
  organizationId: org.organizationId,
  reservationId,
  relatedEntityId: reservationId,
  amount: "0.0100",
  quantity: 1,
  reason,
});

/** Settles a hold with this process's clock at `at` (a charge dated then, as one settled that day was). */
async function settledAt(at: number, org: TestOrganization, reservationId: string, reason: "SmsSegments") {
  vi.setSystemTime(at);
  try {
    await Billing.settle(settleInput(org, reservationId, reason));
  } finally {
    vi.useRealTimers();
  }
}

/** An organization whose `count` holds are on one shard, the first settled yesterday (the shard counts yesterday). */
async function shardCountingYesterday(count: number) {
  const org = await newOrganization();
  const today = dayOf(Date.now());
  const yesterday = dayOf(Date.now() - dayMs);
  const { holds, shard } = await holdsOnOneShard(org, count);
  await settledAt(Date.now() - dayMs, org, holds[0]!, "SmsSegments");
  return { org, today, yesterday, holds, shard };
}

/** Each day's usage total equals the ledger's charges of that day. */
async function expectDaysEqualTheLedger(org: TestOrganization, days: string[]) {
  for (const day of days) {
    const answer = await usage(org, day);
    const ledger = await ledgerChargesIn(org, answer);
    expect(answer.total, day).toEqual({ count: ledger.count, amount: ledger.amount });
  }
}

/** Counts this process's DynamoDB commands whose input contains all of `parts`, until stopped. */
function countCommands(...parts: string[]) {
  const name = `count-${randomUUID()}`;
  let count = 0;
  db().middlewareStack.add(
    (next) => async (args) => {
      const json = JSON.stringify(args.input);
      if (parts.every((part) => json.includes(part))) count++;
      return next(args);
    },
    { step: "initialize", name },
  );
  return { count: () => count, stop: () => void db().middlewareStack.remove(name) };
}

describe("usage counted on the wallet shard", () => {
  applyStackEnv();

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
    const { org, today, yesterday, holds, shard } = await shardCountingYesterday(2);
    const charged = sms(await usage(org, yesterday));
    expect(charged.count).toBe(1);
    expect(sms(await usage(org, today)).count).toBe(0);

    await settledAt(Date.now(), org, holds[1]!, "SmsSegments");
    expect(sms(await usage(org, yesterday))).toEqual(charged);
    expect(sms(await usage(org, today)).count).toBe(1);
    await expectDaysEqualTheLedger(org, [yesterday, today]);

    // The shard rolled over: yesterday's counters in an item of their own, today's on it.
    const rolled = await usageDaysOf(org, String(shard));
    expect(rolled.map((item) => [item.day, item.rollover, item["count#SmsSegments"]])).toEqual([[yesterday, 0, 1]]);
    const now = (await shards(org))[shard]!;
    expect(now).toMatchObject({ usageDay: today, usageRollovers: 1, usageCharges: 1, "count#SmsSegments": 1 });
  });

  it("a charge of the shard's day committed while a rollover of it is under way is counted on its own day", async () => {
    const org = await newOrganization();
    const today = dayOf(Date.now());
    const yesterday = dayOf(Date.now() - dayMs);
    const { holds, shard } = await holdsOnOneShard(org, 3);
    await settledAt(Date.now(), org, holds[0]!, "SmsSegments");

    // A settlement dated yesterday (a late one around midnight) finds the shard counting today and moves today's
    // counters off; between its read of the shard and its move, a charge of today of a reason the shard has not
    // counted yet commits there.
    const key = `WALLET#SHARD#${shard}`;
    let raced!: Promise<unknown>;
    let release!: () => void;
    const stopHold = holdWhen(new Promise<void>((resolve) => (release = resolve)), key, SHARD_ROLLOVERS);
    const stopAfter = afterCommand(
      () => {
        vi.useRealTimers();
        raced = Billing.settle(settleInput(org, holds[2]!, "CallMinutes")).finally(release);
      },
      '"Key":{',
      key,
      '"ConsistentRead":true',
    );
    try {
      vi.setSystemTime(Date.now() - dayMs);
      await Billing.settle(settleInput(org, holds[1]!, "SmsSegments"));
      await raced;
    } finally {
      vi.useRealTimers();
      stopHold();
      stopAfter();
    }
    expect(raced).toBeDefined();
    expect(sms(await usage(org, today)).count).toBe(1);
    expect((await usage(org, today)).kinds.find((kind: any) => kind.kind === "CallMinutes").count).toBe(1);
    expect(sms(await usage(org, yesterday)).count).toBe(1);
    await expectDaysEqualTheLedger(org, [yesterday, today]);
  });

  it("a usage read that a rollover overtakes counts the moved day once (the shard as read, not the item written after)", async () => {
    const org = await newOrganization();
    const yesterday = dayOf(Date.now() - dayMs);
    const period = { from: yesterday, to: yesterday };
    const { holds, shard } = await holdsOnOneShard(org, 2);
    await settledAt(Date.now() - dayMs, org, holds[0]!, "SmsSegments");

    // The read has the shard (yesterday's counters on it); before it queries the shard's usage items, today's first
    // charge moves those counters into one.
    let shardsRead!: () => void;
    const read = new Promise<void>((resolve) => (shardsRead = resolve));
    let release!: () => void;
    const stopAfter = afterCommand(() => shardsRead(), "RequestItems", `WALLET#SHARD#${shard}`);
    const stopHold = holdWhen(new Promise<void>((resolve) => (release = resolve)), `#USAGE#${shard}"`, "KeyCondition");
    try {
      const items = usageItems(org.organizationId, period);
      await read;
      await Billing.settle(settleInput(org, holds[1]!, "SmsSegments"));
      release();
      expect(sms(usageOf(await items, period, "USD")).count).toBe(1);
    } finally {
      release();
      stopAfter();
      stopHold();
    }
    expect(await usageDaysOf(org, String(shard))).toHaveLength(1);
    expect(sms(await usage(org, yesterday)).count).toBe(1);
  });

  it("a refusal that is not the shard's day is committed once more, then thrown", async () => {
    const org = await newOrganization();
    const { shard } = await holdsOnOneShard(org, 1);
    const entry = { reason: "SmsSegments", quantity: 1, amount: "-0.0100", createdAt: new Date().toISOString() };
    const attempts = countCommands("TransactItems", `WALLET#SHARD#${shard}`);
    try {
      // The shard admits the charge's day; the wallet change is refused for its cover, which no shard has.
      const refused = commitCharges([
        walletChange(
          org.organizationId,
          { balance: 0, reserved: 0, available: 0 },
          entry.createdAt,
          shard,
          { units: 1e15, refuseSuspended: false },
          shardUsage(org.organizationId, entry as LedgerEntry, shard),
        ),
      ]);
      await expect(refused).rejects.toBeInstanceOf(TransactionConditionFailed);
    } finally {
      attempts.stop();
    }
    expect(attempts.count()).toBe(2);
  });

  it("a settlement refused for a day another settlement moves off before its read commits, not thrown", async () => {
    const { org, today, yesterday, holds, shard } = await shardCountingYesterday(3);

    // At midnight two settlements of today are refused by the shard still counting yesterday; the first one's read of
    // the shard waits until the other has moved yesterday off and committed (its read passes).
    const key = `WALLET#SHARD#${shard}`;
    const name = `overtaken-${randomUUID()}`;
    let overtaking: Promise<unknown> | undefined;
    db().middlewareStack.add(
      (next) => async (args) => {
        const json = JSON.stringify(args.input);
        if (!overtaking && json.includes('"Key":{') && json.includes(key) && json.includes('"ConsistentRead":true')) {
          overtaking = Billing.settle(settleInput(org, holds[2]!, "SmsSegments"));
          await overtaking;
        }
        return next(args);
      },
      { step: "initialize", name },
    );
    try {
      await Billing.settle(settleInput(org, holds[1]!, "SmsSegments"));
    } finally {
      db().middlewareStack.remove(name);
    }
    expect(overtaking).toBeDefined();
    expect(sms(await usage(org, today)).count).toBe(2);
    expect(sms(await usage(org, yesterday)).count).toBe(1);
    await expectDaysEqualTheLedger(org, [yesterday, today]);
  });
});
