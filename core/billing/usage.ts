/**
 * Usage by kind (issue 29): what an organization was charged over a period, per charge reason (SMS segments, MMS,
 * call minutes, phone number months …), with its count and quantity. Every charge's transaction also adds it to
 * the counters of its UTC day on the wallet part it was taken from (UsageDay, docs/data-model.md), so the usage of
 * a period is one key range of at most 10 small items a day, however many charges there were, and it adds up to
 * the ledger's charges of the period by construction (charges older than the counters: `backfillUsage`).
 */
import * as v from "valibot";
import { ledgerPut } from "#core/billing/ledger";
import { fromUnits, toUnits } from "#core/billing/prices";
import { type LedgerEntry } from "#core/billing/schemas";
import { LedgerEntryEntity, UsageDayEntity } from "#core/db/entities/billing";
import { WALLET_SHARDS } from "#core/billing/wallet-shards";
import { computed } from "#core/db/expression";
import { keys } from "#core/db/keys";
import { queryAll } from "#core/db/query";
import { writeItems } from "#core/db/items";
import { part, type TransactItem } from "#core/db/transact";
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

/**
 * The writes that record a charge: its ledger entry and its place in the usage of its day, on the wallet part
 * (`walletShard`, else the wallet item) whose change it is. Only the transactions that change that wallet part write
 * its usage item, so counting adds one small update to each charge and no new contention.
 */
export function chargeWrites(organizationId: string, entry: LedgerEntry, walletShard?: number): TransactItem[] {
  const identity = {
    organizationId,
    day: entry.createdAt.slice(0, 10),
    walletPart: walletShard === undefined ? "W" : String(walletShard),
  };
  const counted = UsageDayEntity.update(identity, {
    entity: UsageDayEntity.name,
    day: identity.day,
    [counterNames.count(entry.reason)]: computed.increment(1),
    [counterNames.quantity(entry.reason)]: computed.increment(entry.quantity ?? 0),
    [counterNames.units(entry.reason)]: computed.increment(-toUnits(entry.amount)),
  });
  // `usageCounted` tells `backfillUsage` this charge is in a counter already.
  return [ledgerPut(organizationId, entry, { usageCounted: true }), part("usage", { Update: counted })];
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

/** The usage items of the days `from` through `to`: one key range of each wallet part's partition, read in parallel. */
export async function usageItems(organizationId: string, period: { from: string; to: string }) {
  const { lower, upper } = keys.usageDays(period.from, period.to);
  const parts = await Promise.all(
    walletParts.map((walletPart) =>
      queryAll(
        UsageDayEntity.query("collection", { organizationId, walletPart }, { range: { between: [lower, upper] } }),
      ),
    ),
  );
  return parts.flat();
}
