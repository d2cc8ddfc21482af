/**
 * Usage by kind (issue 29): what an organization was charged over a period, per charge reason (SMS segments, MMS,
 * call minutes, phone number months …), with its count and quantity. Every charge's transaction also adds it to
 * the counters of its UTC day on the wallet part it was taken from, so the usage of a period is a few small items a
 * day, however many charges there were, and it adds up to the ledger's charges of the period by construction
 * (charges older than the counters: `backfillUsage`). A charge on the wallet item adds to a UsageDay item
 * (docs/data-model.md); one on a shard (nearly all: holds are taken from shards) adds to counters on the shard item
 * its settlement writes anyway (issue 27, h40: two write units fewer a charge), which hold one day at a time: the
 * first charge of another day moves them to a UsageDay item of their own (`rollOver`).
 */
import * as v from "valibot";
import { ledgerPut } from "#core/billing/ledger";
import { fromUnits, toUnits } from "#core/billing/prices";
import { type LedgerEntry } from "#core/billing/schemas";
import { LedgerEntryEntity, UsageDayEntity, WalletShardEntity } from "#core/db/entities/billing";
import { WALLET_SHARDS } from "#core/billing/wallet-shards";
import { computed, where, type Condition } from "#core/db/expression";
import { keys } from "#core/db/keys";
import { queryAll } from "#core/db/query";
import { getItem, getItemsAt, writeItems } from "#core/db/items";
import { part, transact, Transaction, TransactionConditionFailed, type TransactItem } from "#core/db/transact";
import { ValidationError } from "#core/errors";
import { timestamp, wholeNumber } from "#core/shared/ids";
import { describedCheck } from "#core/shared/validation";

/** Longest period one read covers: a leap year. */
export const MAX_USAGE_DAYS = 366;

/** The charge reasons the ledger writes, in the order usage lists them, and what each one's `quantity` counts. */
export const chargeKinds = {
  SmsSegments: "segments",
  MmsMessage: "messages",
  CallMinutes: "seconds",
  CallForwarded: "seconds",
  PhoneNumberMonthly: "days",
} as const satisfies Record<string, string>;
/** A reason a charge is written with: a new one must be named above, with its unit, before anything charges it. */
export type ChargeReason = keyof typeof chargeKinds;

/** The unit of a reason no kind above names yet (a charge added later is still counted and shown). */
const OTHER_UNIT = "units";

const counterNames = {
  count: (reason: string) => `count#${reason}`,
  quantity: (reason: string) => `quantity#${reason}`,
  units: (reason: string) => `units#${reason}`,
};
const COUNTER = /^(count|quantity|units)#(.+)$/;

/** A charge's counters: one more charge of its reason, its quantity and its amount in 0.0001-units. */
function counted(entry: LedgerEntry, add: (by: number) => unknown): Record<string, unknown> {
  return {
    [counterNames.count(entry.reason)]: add(1),
    [counterNames.quantity(entry.reason)]: add(entry.quantity ?? 0),
    [counterNames.units(entry.reason)]: add(-toUnits(entry.amount)),
  };
}

/**
 * The writes that record a charge: its ledger entry and, for a charge on the wallet item (`walletShard` undefined),
 * its place in the usage of its day. A charge on a shard is counted by that shard's own write (`shardUsage`, given
 * to `walletChange`), so counting adds no item to its transaction; on the wallet item it adds one small update
 * that only transactions already writing the wallet item write (no new contention).
 */
export function chargeWrites(organizationId: string, entry: LedgerEntry, walletShard?: number): TransactItem[] {
  // `usageCounted` tells `backfillUsage` this charge is in a counter already.
  const ledger = ledgerPut(organizationId, entry, { usageCounted: true });
  if (walletShard !== undefined) return [ledger];
  const identity = { organizationId, day: entry.createdAt.slice(0, 10), walletPart: "W" };
  const day = UsageDayEntity.update(identity, {
    entity: UsageDayEntity.name,
    day: identity.day,
    ...counted(entry, computed.increment),
  });
  return [ledger, part("usage", { Update: day })];
}

/**
 * On a shard: the UTC day its usage counters belong to, how many charges changed them since they were last moved off
 * (the version `rollOver` moves them at: a charge of a reason not counted yet adds a counter no other condition pins),
 * and how many times they were moved off (`rollOver`).
 */
const SHARD_DAY = "usageDay";
const SHARD_CHARGES = "usageCharges";
const SHARD_ROLLOVERS = "usageRollovers";

/** Marks a shard's write that counts a charge of `day` (what `commitCharges` rolls the shard over for). */
const countsOnShard = Symbol("countsOnShard");
type ShardDay = { organizationId: string; shard: number; day: string };
type CountingWrite = TransactItem & { [countsOnShard]?: ShardDay };

/**
 * What a charge taken from wallet shard `shard` adds to that shard's write (`walletChange`'s `also`): its counters,
 * on the condition that the shard counts the charge's day (or none yet). A shard still holding another day's
 * counters refuses the write; `commitCharges` then moves them off (`rollOver`) and commits again.
 */
export function shardUsage(organizationId: string, entry: LedgerEntry, shard: number) {
  const day = entry.createdAt.slice(0, 10);
  return {
    changes: { [SHARD_DAY]: day, [SHARD_CHARGES]: computed.add(1), ...counted(entry, computed.add) },
    condition: where.any(where.equals(SHARD_DAY, day), where.absent(SHARD_DAY)) as Condition,
    mark: (write: TransactItem): TransactItem => {
      const marked: CountingWrite = { ...write, [countsOnShard]: { organizationId, shard, day } };
      return marked;
    },
  };
}

/**
 * Commits a transaction that may charge on a shard (`Billing.commit`): when a shard refused it because it still
 * counts an earlier day, that day's counters are moved to their UsageDay item and the transaction is committed again
 * (once a day per shard at most; nothing of it was written, and the retry's own conditions decide as before). A shard
 * found already counting the charge's day (or none) may have been moved off by another settlement between the refusal
 * and the read (at midnight): the transaction is committed once more, and a second such refusal is thrown.
 */
export async function commitCharges(write: TransactItem[] | Transaction): Promise<void> {
  const items: CountingWrite[] = write instanceof Transaction ? write.items : write;
  let committedAgainOnce = false;
  for (let attempt = 1; ; attempt++) {
    try {
      return await transact(write);
    } catch (error) {
      if (!(error instanceof TransactionConditionFailed) || !error.failed("wallet") || attempt >= 4) throw error;
      const days = items.flatMap((item) => item[countsOnShard] ?? []);
      const rolled = await Promise.all(days.map(rollOver));
      if (rolled.includes("moved")) continue;
      if (rolled.includes("admits") && !committedAgainOnce) {
        committedAgainOnce = true;
        continue;
      }
      throw error;
    }
  }
}

const isCounter = ([name, value]: [string, unknown]) => COUNTER.test(name) && typeof value === "number";

/** How many times `rollOver` reads a shard whose counters others keep changing before it leaves it to the caller. */
const ROLLOVER_READS = 4;

/**
 * Moves the counters of a shard that counts a day other than `charged.day` into a UsageDay item of their own
 * (`USAGE#<day>#<shard>#<n>`, n the shard's rollovers so far) in one transaction, conditional on the shard holding
 * the version of its counters that was read (`usageCharges`, besides the counters themselves). "moved": the charge may
 * now be committed (moved here, or by another rollover this one lost to); "admits": the first read found the shard
 * counting the charge's day, or none (another settlement moved it off since the refusal, or the refusal had another
 * cause); "absent": no shard.
 */
async function rollOver(charged: ShardDay): Promise<"moved" | "admits" | "absent"> {
  const { organizationId, shard } = charged;
  for (let read = 1; read <= ROLLOVER_READS; read++) {
    const stored = await getItem(WalletShardEntity.key({ organizationId, shard }), { consistent: true });
    if (!stored) return "absent";
    const day = stored[SHARD_DAY];
    // After a lost race, another rollover moved the day off (and perhaps a charge of this day landed): it may go.
    if (typeof day !== "string" || day === charged.day) return read > 1 ? "moved" : "admits";
    try {
      await transact(movedOff(organizationId, shard, day, stored));
      return "moved";
    } catch (error) {
      // A charge or another rollover changed the shard since the read: read it again.
      if (!(error instanceof TransactionConditionFailed)) throw error;
    }
  }
  return "moved";
}

/** The transaction that moves a shard's counters of `day`, as `stored` holds them, to their UsageDay item. */
function movedOff(organizationId: string, shard: number, day: string, stored: Record<string, unknown>): Transaction {
  const rollovers = Number(stored[SHARD_ROLLOVERS] ?? 0);
  const charges = stored[SHARD_CHARGES];
  const counters = Object.entries(stored).filter(isCounter);
  return new Transaction()
    .put(
      "usage",
      UsageDayEntity.putAt(
        { organizationId, day, walletPart: String(shard), rollover: rollovers },
        { organizationId, day, walletPart: String(shard), rollover: rollovers, ...Object.fromEntries(counters) },
        { condition: where.new() },
      ),
    )
    .update(
      "shard",
      WalletShardEntity.update(
        { organizationId, shard },
        { [SHARD_ROLLOVERS]: rollovers + 1 },
        {
          remove: [SHARD_DAY, SHARD_CHARGES, ...counters.map(([name]) => name)],
          condition: where.all(
            where.equals(SHARD_DAY, day),
            rollovers === 0 ? where.absent(SHARD_ROLLOVERS) : where.equals(SHARD_ROLLOVERS, rollovers),
            // Counters written before `usageCharges` existed carry no version: the counters as read pin them.
            charges === undefined ? where.absent(SHARD_CHARGES) : where.equals(SHARD_CHARGES, charges),
            ...counters.map(([name, value]) => where.equals(name, value)),
          ),
        },
      ),
    );
}

/** The wallet part of the counts `backfillUsage` recomputes: charges written before usage was counted. */
const BACKFILL_PART = "B";

/**
 * Counts the charges written before usage counting existed into the usage days (`npm run admin -- backfill-usage`,
 * once after deploying it): the organization's `Charge` ledger entries without `usageCounted`, summed per day into
 * the part `B`, each day's item written whole (a put, not an increment), so a second run recomputes the same
 * figures. Every charge written since carries `usageCounted` and is never counted here.
 */
export async function backfillUsage(organizationId: string): Promise<{ charges: number; days: number }> {
  const entries = await queryAll(LedgerEntryEntity.query("byCreation", { organizationId }));
  const days = new Map<string, Record<string, number>>();
  let charges = 0;
  for (const entry of entries) {
    if (entry.entryType !== "Charge" || entry.usageCounted === true) continue;
    const reason = String(entry.reason);
    const day = String(entry.createdAt).slice(0, 10);
    const counters = days.get(day) ?? days.set(day, {}).get(day)!;
    const add = (name: string, value: number) => (counters[name] = (counters[name] ?? 0) + value);
    add(counterNames.count(reason), 1);
    add(counterNames.quantity(reason), Number(entry.quantity ?? 0));
    add(counterNames.units(reason), -toUnits(String(entry.amount)));
    charges++;
  }
  await writeItems(
    [...days].map(([day, counters]) => ({
      PutRequest: UsageDayEntity.put({
        organizationId,
        day,
        walletPart: BACKFILL_PART,
        entity: UsageDayEntity.name,
        ...counters,
      }),
    })),
  );
  return { charges, days: days.size };
}

const dayMs = 24 * 60 * 60 * 1000;
/** The UTC day of an instant ("" for none: an unparsable date). */
const dayOf = (ms: number) => (Number.isNaN(ms) ? "" : new Date(ms).toISOString().slice(0, 10));

/** A UTC calendar day as written (`2026-11-01`), which must exist (no 2026-02-30); one message for any bad value. */
const day = v.pipe(
  v.string(),
  describedCheck<string>(
    (value) => /^\d{4}-\d{2}-\d{2}$/.test(value) && dayOf(Date.parse(`${value}T00:00:00Z`)) === value,
    "Must be a real date such as 2026-11-01.",
    { format: "date" },
  ),
);

/** Query of `GET /billing/usage`: `from` and `to`, UTC calendar days, both inclusive; by default the current month. */
export const UsageQuerySchema = v.object({ from: v.optional(day), to: v.optional(day) });
export type UsageQuery = v.InferOutput<typeof UsageQuerySchema>;

const UsageKindSchema = v.object({
  /** The ledger's `reason` of these charges (`SmsSegments`, `MmsMessage`, `CallMinutes`, `CallForwarded`, `PhoneNumberMonthly`). */
  kind: v.string(),
  /** How many charges: messages, calls, phone number months. */
  count: wholeNumber,
  /** The charges' summed ledger `quantity`, in `unit`: SMS segments, MMS messages, billed call seconds, days of number months. */
  quantity: wholeNumber,
  unit: v.string(),
  /** Charged, as a positive decimal string with 4 decimals, in the answer's `currency`. */
  amount: v.string(),
});

export const UsageSchema = v.object({
  /** First day of the period (UTC, inclusive). */
  from: v.pipe(v.string(), v.isoDate()),
  /** Last day of the period (UTC, inclusive). */
  to: v.pipe(v.string(), v.isoDate()),
  /** The period as instants: `from` at 00:00 UTC (inclusive) to the day after `to` (exclusive). */
  startAt: timestamp,
  endAt: timestamp,
  currency: v.string(),
  /** Every kind the ledger charges, in a fixed order, zero when unused, then any other reason charged in the period. */
  kinds: v.array(UsageKindSchema),
  /** The sum of `kinds`: `amount` equals minus the sum of the period's `Charge` ledger entries. */
  total: v.object({ count: wholeNumber, amount: v.string() }),
});
export type Usage = v.InferOutput<typeof UsageSchema>;

const startOf = (date: string) => Date.parse(`${date}T00:00:00Z`);
const monthStartOf = (date: string) => `${date.slice(0, 7)}-01`;
const monthEndOf = (date: string) => {
  const start = new Date(startOf(monthStartOf(date)));
  return dayOf(Date.UTC(start.getUTCFullYear(), start.getUTCMonth() + 1, 0));
};

/**
 * The days a usage query asks for. Without either bound, the current UTC month; with one, that bound's month
 * completes the other. `to` before `from`, or a period of more than 366 days, is a 400 naming `to`.
 */
export function resolveUsagePeriod(query: UsageQuery, now: number = Date.now()): { from: string; to: string } {
  const anchor = query.from ?? query.to ?? dayOf(now);
  const from = query.from ?? monthStartOf(anchor);
  const to = query.to ?? monthEndOf(anchor);
  if (to < from)
    throw new ValidationError("The period ends before it starts.", [
      { in: "query", field: "to", detail: "to must be the same day as from or later." },
    ]);
  if ((startOf(to) - startOf(from)) / dayMs + 1 > MAX_USAGE_DAYS)
    throw new ValidationError(`The period may cover at most ${MAX_USAGE_DAYS} days.`, [
      { in: "query", field: "to", detail: `to must be at most ${MAX_USAGE_DAYS - 1} days after from.` },
    ]);
  return { from, to };
}

/** Sums the usage items of a period into one row per kind and the total. */
export function usageOf(
  items: readonly Record<string, unknown>[],
  period: { from: string; to: string },
  currency: string,
): Usage {
  const sums = new Map<string, { count: number; quantity: number; units: number }>(
    Object.keys(chargeKinds).map((reason) => [reason, { count: 0, quantity: 0, units: 0 }]),
  );
  for (const item of items) {
    for (const [name, value] of Object.entries(item)) {
      const [, counter, reason] = COUNTER.exec(name) ?? [];
      if (!counter || !reason || typeof value !== "number") continue;
      const sum = sums.get(reason) ?? sums.set(reason, { count: 0, quantity: 0, units: 0 }).get(reason)!;
      sum[counter as "count" | "quantity" | "units"] += value;
    }
  }
  const kinds = [...sums].map(([reason, sum]) => ({
    kind: reason,
    count: sum.count,
    quantity: sum.quantity,
    unit: (chargeKinds as Record<string, string>)[reason] ?? OTHER_UNIT,
    amount: fromUnits(sum.units),
  }));
  const totalUnits = [...sums.values()].reduce((total, sum) => total + sum.units, 0);
  return {
    ...period,
    startAt: new Date(startOf(period.from)).toISOString(),
    endAt: new Date(startOf(period.to) + dayMs).toISOString(),
    currency,
    kinds,
    total: { count: kinds.reduce((total, kind) => total + kind.count, 0), amount: fromUnits(totalUnits) },
  };
}

/** Every wallet part a charge is counted on: the wallet item, each shard, and the backfilled charges. */
const walletParts = ["W", ...Array.from({ length: WALLET_SHARDS }, (_, shard) => String(shard)), BACKFILL_PART];

/**
 * The usage items of the days `from` through `to`: the shards' own counters of a day in the period, then one key range
 * of each wallet part's partition, read in parallel. The shards are read first (consistently): a UsageDay item a
 * rollover wrote after that read (its `rollover` at or past the shard's count read) holds counters the shard was read
 * with, so it is left out, and every one written before is in the ranges read after; no charge is counted twice or
 * missed however rollovers race the read.
 */
export async function usageItems(organizationId: string, period: { from: string; to: string }) {
  const shardNumbers = Array.from({ length: WALLET_SHARDS }, (_, shard) => shard);
  const shards = await getItemsAt(
    shardNumbers.map((shard) => WalletShardEntity.key({ organizationId, shard })),
    { consistent: true },
  );
  const { lower, upper } = keys.usageDays(period.from, period.to);
  const parts = await Promise.all(
    walletParts.map((walletPart) =>
      queryAll(
        UsageDayEntity.query(
          "collection",
          { organizationId, walletPart },
          { range: { between: [lower, upper] }, consistent: true },
        ),
      ),
    ),
  );
  const rolloversRead = (walletPart: unknown) => Number(shards[Number(walletPart)]?.[SHARD_ROLLOVERS] ?? 0);
  const days = parts
    .flat()
    .filter((item) => item.rollover === undefined || Number(item.rollover) < rolloversRead(item.walletPart));
  const onShards = shards.flatMap((shard) => {
    const day = shard?.[SHARD_DAY];
    if (!shard || typeof day !== "string" || day < period.from || day > period.to) return [];
    return [Object.fromEntries(Object.entries(shard).filter(isCounter))];
  });
  return [...days, ...onShards];
}
