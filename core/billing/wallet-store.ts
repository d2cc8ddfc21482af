/** The wallet item: opened with the trial credit on first use, changed only together with a ledger entry, never below the floor. */
import { ledgerEntry, ledgerPut } from "#core/billing/ledger";
import {
  type LedgerEntry,
  type StoredWallet,
  type WalletStatus,
  WalletRefusedError,
  type Wallet,
} from "#core/billing/schemas";
import { table } from "#core/db/items";
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
import { entities, keys } from "#core/db/keys";
import { ValidationError } from "#core/errors";
import { nowIso } from "#core/shared/ids";
import * as Money from "#core/shared/money";
import { environmentNames } from "#stacks/definitions";

export const floorUnits = () => toUnits(BALANCE_FLOOR);

export function trialCredit(): string {
  const configured = process.env[environmentNames.billingTrialCredit];
  return configured && Money.isDecimal(configured) ? Money.toBilling(configured) : DEFAULT_TRIAL_CREDIT;
}

export function walletChange(
  organizationId: string,
  delta: { balance: number; reserved: number; available: number },
  now: string,
): TransactItem {
  return part("wallet", {
    Update: {
      Key: keys.wallet(organizationId),
      UpdateExpression:
        "SET modifiedAt = :now ADD balanceUnits :balance, reservedUnits :reserved, availableUnits :available",
      ConditionExpression: "attribute_exists(pk)",
      ExpressionAttributeValues: {
        ":now": now,
        ":balance": delta.balance,
        ":reserved": delta.reserved,
        ":available": delta.available,
      },
    },
  });
}

/** Makes a wallet change that takes `units` conditional on the available balance staying at or above the floor (and, for usage, on the wallet not being suspended). */
export function requireCover(change: TransactItem, units: number, options: { refuseSuspended: boolean }): TransactItem {
  change.Update!.ConditionExpression = `attribute_exists(pk)${options.refuseSuspended ? " AND attribute_not_exists(suspendedAt)" : ""} AND availableUnits >= :needed`;
  change.Update!.ExpressionAttributeValues![":needed"] = units + floorUnits();
  return change;
}

/** A credit (or signed adjustment) and its ledger entry in one transaction; never takes available below the floor. */
export async function credit(
  organizationId: string,
  input: Pick<LedgerEntry, "entryType" | "amount" | "reason" | "description" | "reference" | "createdBy">,
): Promise<LedgerEntry> {
  const wallet = await storedWallet(organizationId);
  const units = toUnits(input.amount);
  const entry = ledgerEntry({ ...input, amount: fromUnits(units), currency: wallet.currency, createdAt: nowIso() });
  const change = walletChange(organizationId, { balance: units, reserved: 0, available: units }, entry.createdAt);
  if (units < 0) requireCover(change, -units, { refuseSuspended: false });
  try {
    await transact([change, ledgerPut(organizationId, entry)]);
  } catch (error) {
    if (error instanceof TransactionConditionFailed && error.failed("wallet")) {
      throw new ValidationError("The adjustment would take the available balance below the floor.", [
        { pointer: "/amount", detail: `At most ${fromUnits(wallet.availableUnits - floorUnits())} can be taken.` },
      ]);
    }
    throw error;
  }
  return entry;
}

/** Reads the wallet, opening it (with the trial credit and its ledger entry) the first time. */
export async function storedWallet(organizationId: string): Promise<StoredWallet> {
  const read = async () =>
    (await table.get({ Key: keys.wallet(organizationId), ConsistentRead: true })).Item as StoredWallet | undefined;
  const existing = await read();
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
  const items: TransactItem[] = [
    {
      Put: {
        Item: { ...keys.wallet(organizationId), entity: entities.wallet, organizationId, ...wallet },
        ConditionExpression: "attribute_not_exists(pk)",
      },
    },
  ];
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
    return wallet;
  } catch (error) {
    if (!(error instanceof TransactionConditionFailed)) throw error;
    return (await read())!;
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

/** The organization's price list: the defaults, overridden field by field by the operator. */
export async function storedPrices(organizationId: string): Promise<PriceList> {
  const { Item } = await table.get({ Key: keys.priceList(organizationId) });
  if (!Item) return DEFAULT_PRICES;
  const overrides = Object.fromEntries(
    Object.keys(DEFAULT_PRICES)
      .filter((field) => Item[field] !== undefined)
      .map((field) => [field, Item[field]]),
  );
  return { ...DEFAULT_PRICES, ...overrides } as PriceList;
}
