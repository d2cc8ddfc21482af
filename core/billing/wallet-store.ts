/** The wallet item: opened with the trial credit on first use, changed only together with a ledger entry, never below the floor. */
import { ledgerEntry, ledgerPut } from "#core/billing/ledger";
import {
  type LedgerEntry,
  type StoredWallet,
  type WalletStatus,
  WalletRefusedError,
  type Wallet,
} from "#core/billing/schemas";
import { PriceListEntity, WalletEntity, WalletShardEntity } from "#core/db/entities/billing";
import { copyFor, storedForChange } from "#core/db/copies";
import { computed, where, type Condition } from "#core/db/expression";
import { getItemsAt, oneItem, type PlannedRead } from "#core/db/items";
import { drainShards, shardsHoldMoney } from "#core/billing/wallet-shards";
import {
  BALANCE_FLOOR,
  DEFAULT_LOW_BALANCE_THRESHOLD,
  DEFAULT_PRICES,
  DEFAULT_TRIAL_CREDIT,
  fromUnits,
  toUnits,
  type PriceList,
} from "#core/billing/prices";
import { part, transact, TransactionConditionFailed, type TransactItem } from "#core/db/transact";
import { ValidationError } from "#core/errors";
import { nowIso } from "#core/shared/ids";
import * as Money from "#core/shared/money";
import { environmentNames } from "#stacks/definitions";
import { walletPartsRead, type SubBalance, type WalletParts } from "#core/billing/wallet-read";

export const floorUnits = () => toUnits(BALANCE_FLOOR);

export function trialCredit(): string {
  const configured = process.env[environmentNames.billingTrialCredit];
  return configured && Money.isDecimal(configured) ? Money.toBilling(configured) : DEFAULT_TRIAL_CREDIT;
}

/** What a wallet change must find: the wallet able to cover `units` (above the floor, and not suspended when asked). */
export interface Cover {
  units: number;
  refuseSuspended: boolean;
}

/**
 * A change of the wallet's money, on the wallet item or (a hold taken from one) on that shard. With `cover`, it takes
 * `units` only if the available balance stays at or above the floor (and, for usage, the wallet is not suspended).
 * `also`: what else the same write records (a charge's usage counters on its shard, core/billing/usage.ts).
 */
export function walletChange(
  organizationId: string,
  delta: { balance: number; reserved: number; available: number },
  now: string,
  shard?: number,
  cover?: Cover,
  also?: { changes: Record<string, unknown>; condition: Condition; mark: (write: TransactItem) => TransactItem },
): TransactItem {
  const changes = {
    modifiedAt: now,
    balanceUnits: computed.increment(delta.balance),
    reservedUnits: computed.increment(delta.reserved),
    availableUnits: computed.increment(delta.available),
    ...also?.changes,
  };
  const condition = where.all(
    where.stored(),
    cover?.refuseSuspended ? where.absent("suspendedAt") : undefined,
    cover ? where.atLeast("availableUnits", cover.units + floorUnits()) : undefined,
    also?.condition,
  );
  const write = part("wallet", { Update: walletPartUpdate(organizationId, shard, changes, condition) });
  return also ? also.mark(write) : write;
}

/** An update of the wallet item, or of one of its shards. */
export function walletPartUpdate(
  organizationId: string,
  shard: number | undefined,
  changes: Record<string, unknown>,
  condition?: Condition,
) {
  const options = condition ? { condition } : {};
  return shard === undefined
    ? WalletEntity.update({ organizationId }, changes, options)
    : WalletShardEntity.update({ organizationId, shard }, changes, options);
}

/** A credit (or signed adjustment) and its ledger entry in one transaction; never takes available below the floor. */
export async function credit(
  organizationId: string,
  input: Pick<LedgerEntry, "entryType" | "amount" | "reason" | "description" | "reference" | "createdBy">,
): Promise<LedgerEntry> {
  const wallet = await storedWallet(organizationId);
  const units = toUnits(input.amount);
  const entry = ledgerEntry({ ...input, amount: fromUnits(units), currency: wallet.currency, createdAt: nowIso() });
  const change = walletChange(
    organizationId,
    { balance: units, reserved: 0, available: units },
    entry.createdAt,
    undefined,
    units < 0 ? { units: -units, refuseSuspended: false } : undefined,
  );
  try {
    await transact([change, ledgerPut(organizationId, entry)]);
  } catch (error) {
    if (error instanceof TransactionConditionFailed && error.failed("wallet")) {
      // Money held by the shards is the organization's too: once it is back on the wallet item, try once more.
      const parts = await readWalletParts(organizationId);
      if (parts && shardsHoldMoney(parts)) {
        await drainShards(organizationId, parts);
        return credit(organizationId, input);
      }
      throw new ValidationError("The adjustment would take the available balance below the floor.", [
        { pointer: "/amount", detail: `At most ${fromUnits(wallet.availableUnits - floorUnits())} can be taken.` },
      ]);
    }
    throw error;
  }
  return entry;
}

/** Reads the wallet (its item and shards summed), opening it (with the trial credit and its ledger entry) the first time. */
export async function storedWallet(organizationId: string): Promise<StoredWallet> {
  return totalOf(await storedWalletParts(organizationId));
}

/**
 * The wallet item and its shards, opening the wallet the first time. `read`: what a batched read found already
 * (`walletPartsRead`), so only a wallet never opened costs more.
 */
export async function storedWalletParts(
  organizationId: string,
  read?: { parts: WalletParts | undefined },
): Promise<WalletParts> {
  const existing = read ? read.parts : await readWalletParts(organizationId);
  if (existing) return existing;
  const now = nowIso();
  const creditUnits = toUnits(trialCredit());
  const wallet: StoredWallet = {
    currency: DEFAULT_PRICES.currency,
    balanceUnits: creditUnits,
    reservedUnits: 0,
    availableUnits: creditUnits,
    lowBalanceThresholdUnits: toUnits(DEFAULT_LOW_BALANCE_THRESHOLD),
    createdAt: now,
  };
  const items: TransactItem[] = [part("wallet", { Put: WalletEntity.create({ organizationId, ...wallet }) })];
  if (creditUnits > 0) {
    items.push(
      ledgerPut(
        organizationId,
        ledgerEntry({
          entryType: "TrialCredit",
          amount: fromUnits(creditUnits),
          currency: wallet.currency,
          reason: "TrialCredit",
          description: "Trial credit of a new organization",
          createdBy: "system",
          createdAt: now,
        }),
      ),
    );
  }
  try {
    await transact(items);
    return { main: wallet, shards: new Map() };
  } catch (error) {
    if (!(error instanceof TransactionConditionFailed)) throw error;
    return (await readWalletParts(organizationId))!;
  }
}

export function walletStatus(stored: StoredWallet): WalletStatus {
  if (stored.suspendedAt) return "Suspended";
  if (stored.availableUnits <= floorUnits()) return "Empty";
  if (stored.availableUnits < stored.lowBalanceThresholdUnits) return "Low";
  return "Active";
}

export function refusal(organizationId: string, stored: StoredWallet, units: number): WalletRefusedError {
  const status = walletStatus(stored);
  if (status === "Suspended") {
    return new WalletRefusedError(
      "WalletSuspended",
      status,
      `The wallet of organization ${organizationId} is suspended: ${stored.suspendedReason ?? "contact support"}.`,
    );
  }
  return new WalletRefusedError(
    "InsufficientFunds",
    status,
    `The available balance ${fromUnits(stored.availableUnits)} ${stored.currency} cannot cover the estimated cost ${fromUnits(units)}; top up the wallet.`,
  );
}

export function toWallet(organizationId: string, stored: StoredWallet, prices: PriceList): Wallet {
  return {
    organizationId,
    currency: stored.currency,
    balance: fromUnits(stored.balanceUnits),
    reservedAmount: fromUnits(stored.reservedUnits),
    availableBalance: fromUnits(stored.availableUnits),
    status: walletStatus(stored),
    lowBalanceThreshold: fromUnits(stored.lowBalanceThresholdUnits),
    floor: Money.toBilling(BALANCE_FLOOR),
    suspendedAt: stored.suspendedAt ?? null,
    suspendedReason: stored.suspendedReason ?? null,
    prices,
    createdAt: stored.createdAt,
    modifiedAt: stored.modifiedAt ?? null,
  };
}

/**
 * The organization's price list: the defaults, overridden field by field by the operator. Read from the copy for
 * `by` (what it is for: a message, a call; any copy when it names nothing, core/db/copies.ts).
 */
export async function storedPrices(organizationId: string, by?: string): Promise<PriceList> {
  return pricesOf(await PriceListEntity.get({ organizationId, copy: copyFor(by) }));
}

/**
 * The read of the price list, for a batch with other reads (`readTogether`), from the copy for `by`: a message's
 * hold and its settlement name the message, so they read one copy (as they read one item before the copies).
 */
export const pricesRead = (organizationId: string, by?: string): PlannedRead<PriceList> =>
  oneItem(PriceListEntity.key({ organizationId, copy: copyFor(by) }), pricesOf);

/**
 * The price list a change starts from: read consistently (the change writes every copy from it), from the old item
 * while `migrate-keys` has not yet copied it (core/db/copies.ts `storedForChange`), so no earlier override is lost.
 */
export async function pricesToChange(organizationId: string): Promise<PriceList> {
  return pricesOf(await storedForChange(organizationId, (copy) => PriceListEntity.key({ organizationId, copy })));
}

function pricesOf(Item: Record<string, unknown> | undefined): PriceList {
  if (!Item) return DEFAULT_PRICES;
  const overrides = Object.fromEntries(
    Object.keys(DEFAULT_PRICES)
      .filter((field) => Item[field] !== undefined)
      .map((field) => [field, Item[field]]),
  );
  return { ...DEFAULT_PRICES, ...overrides } as PriceList;
}

// The wallet's sub-balances (core/billing/wallet-shards.ts decides when money moves; these are the reads and writes,
// the read others batch with theirs in wallet-read.ts).

/**
 * Reads the wallet item and every shard by their keys, consistently, in one BatchGetItem (each shard is in a
 * partition of its own); undefined when the wallet was never opened. A shard never funded is not stored.
 */
export async function readWalletParts(organizationId: string): Promise<WalletParts | undefined> {
  const read = walletPartsRead(organizationId);
  return read.from(await getItemsAt(read.keys, { consistent: true }));
}

/** What the organization sees: the wallet item's settings with the sums of every item's money. */
export function totalOf({ main, shards }: WalletParts): StoredWallet {
  const all: SubBalance[] = [main, ...shards.values()];
  const sum = (pick: (part: SubBalance) => number) => all.reduce((total, part) => total + Number(pick(part) ?? 0), 0);
  const modifiedAt = all
    .map((part) => part.modifiedAt)
    .filter((at): at is string => Boolean(at))
    .sort()
    .pop();
  return {
    ...main,
    balanceUnits: sum((part) => part.balanceUnits),
    reservedUnits: sum((part) => part.reservedUnits),
    availableUnits: sum((part) => part.availableUnits),
    ...(modifiedAt ? { modifiedAt } : {}),
  };
}

/** Moves `chunk` from the wallet item into `shard`, on condition that the wallet item still holds `funded` and is not suspended. */
export function refillItems(
  organizationId: string,
  shard: number,
  chunk: number,
  funded: number,
  hold?: { units: number; now: string },
): TransactItem[] {
  const held = hold?.units ?? 0;
  return [
    part(hold ? "refill" : "wallet", {
      Update: WalletEntity.update(
        { organizationId },
        { balanceUnits: computed.increment(-chunk), availableUnits: computed.increment(-chunk) },
        { condition: where.all(where.stored(), where.absent("suspendedAt"), where.atLeast("availableUnits", funded)) },
      ),
    }),
    part(hold ? "wallet" : "shard", {
      // Created by its first refill: it names its entity and organization then. With `hold`, the hold is taken from
      // the chunk in the same write (the chunk covers at least two such holds, so no condition of its own).
      Update: WalletShardEntity.update(
        { organizationId, shard },
        {
          entity: WalletShardEntity.name,
          organizationId,
          balanceUnits: computed.increment(chunk),
          availableUnits: computed.increment(chunk - held),
          reservedUnits: computed.increment(held),
          ...(hold ? { modifiedAt: hold.now } : {}),
        },
      ),
    }),
  ];
}

/** Gives each shard's `units` back to the wallet item (each on condition the shard still has them available). */
export function drainItems(organizationId: string, moves: { shard: number; units: number }[]): TransactItem[] {
  const total = moves.reduce((sum, move) => sum + move.units, 0);
  return [
    part("wallet", {
      Update: WalletEntity.update(
        { organizationId },
        { balanceUnits: computed.increment(total), availableUnits: computed.increment(total) },
        { condition: where.stored() },
      ),
    }),
    ...moves.map(({ shard, units }) =>
      part("shard", {
        Update: WalletShardEntity.update(
          { organizationId, shard },
          { balanceUnits: computed.increment(-units), availableUnits: computed.increment(-units) },
          { condition: where.atLeast("availableUnits", units) },
        ),
      }),
    ),
  ];
}
