import * as v from "valibot";
import { ledgerEntry, ledgerPut } from "#core/billing/ledger";
import {
  storedWallet,
  storedWalletParts,
  toWallet,
  totalOf,
  storedPrices,
  pricesRead,
  pricesToChange,
  walletChange,
  walletStatus,
  credit,
} from "#core/billing/wallet-store";
import type { WalletParts } from "#core/billing/wallet-read";
import { gatherShards } from "#core/billing/wallet-shards";
import { type Wallet, type LedgerEntry, WalletSettingsSchema } from "#core/billing/schemas";
import { table } from "#core/db/items";
import type { Actor } from "#core/auth/actor";
import {
  fromUnits,
  PriceListSchema,
  PriceOverridesSchema,
  toUnits,
  type PriceList,
  type PriceOverrides,
} from "#core/billing/prices";
import { transact, Transaction, TransactionConditionFailed, type TransactItem } from "#core/db/transact";
import { PriceListEntity, WalletEntity } from "#core/db/entities/billing";
import { putEveryCopy } from "#core/db/copies";
import { ValidationError } from "#core/errors";
import { nowIso } from "#core/shared/ids";
import * as Money from "#core/shared/money";
import { toFieldErrors } from "#core/shared/validation";

export type { TransactItem } from "#core/db/transact";
// Holds, settlements and charges (core/billing/reservations.ts), for callers that also read the wallet or prices.
export {
  reserve,
  settlement,
  releaseItems,
  chargeItems,
  refusal,
  settle,
  release,
  reservationRead,
  commit,
} from "#core/billing/reservations";
export { TransactionConditionFailed } from "#core/db/transact";
export type { WalletParts } from "#core/billing/wallet-read";
export * from "#core/billing/prices";
export * from "#core/billing/schemas";
export { ListLedgerSchema } from "#core/billing/ledger";
export { UsageQuerySchema, UsageSchema, type Usage } from "#core/billing/usage";
export { HOLD_CHECK_AFTER_MS, holdShards, outcomeOf } from "#core/billing/reservations";

/**
 * The prepaid wallet of each organization. The wallet item holds the balance,
 * the reserved amount and the available amount (balance − reserved) in integer
 * units of 0.0001; every change of the balance is one transaction that also
 * writes its ledger entry, so the balance always equals the ledger's sum.
 */

/** The wallet (opened with the trial credit on first use). */
export async function wallet(organizationId: string): Promise<Wallet> {
  const [stored, prices] = await Promise.all([storedWallet(organizationId), storedPrices(organizationId)]);
  return toWallet(organizationId, stored, prices);
}

/**
 * What a check before spending needs of the wallet (its status, available balance, suspension), without the price
 * list `wallet` adds; `read`: the parts a batched read found (`walletPartsRead`, core/billing/wallet-read.ts), so
 * only a wallet never opened reads more.
 */
export async function standing(
  organizationId: string,
  read?: { parts: WalletParts | undefined },
): Promise<Pick<Wallet, "status" | "availableBalance" | "currency" | "suspendedReason">> {
  const stored = totalOf(await storedWalletParts(organizationId, read));
  return {
    status: walletStatus(stored),
    availableBalance: fromUnits(stored.availableUnits),
    currency: stored.currency,
    suspendedReason: stored.suspendedReason ?? null,
  };
}

/** The organization's price list: the defaults, overridden field by field by the operator. */
export { storedPrices as prices };

/** The price list's read, for a batch with the caller's other reads. */
export { pricesRead };

/** Operator: overrides some prices of one organization (a ValidationError names each bad field). */
export async function setPrices(organizationId: string, overrides: PriceOverrides): Promise<PriceList> {
  const parsed = v.safeParse(PriceOverridesSchema, overrides);
  if (!parsed.success)
    throw new ValidationError("The prices are not valid; see errors for each field.", toFieldErrors(parsed.issues));
  const current = await pricesToChange(organizationId);
  const next = v.parse(PriceListSchema, { ...current, ...parsed.output });
  const modifiedAt = nowIso();
  await putEveryCopy("prices", (copy) => PriceListEntity.put({ organizationId, copy, ...next, modifiedAt }));
  return next;
}

/**
 * A movement of money decided by the payment provider (a payment received,
 * a refund, a dispute): its ledger entry and the balance change, committed
 * with the payment's own records in `items`, whose conditions make it happen
 * once. It is never refused for the floor: the money already moved at the
 * provider, so the wallet records it (and core/billing/payments.ts suspends a
 * wallet it leaves short). False when `items`' conditions show it was recorded before.
 */
export async function recordPayment(
  organizationId: string,
  input: Pick<LedgerEntry, "entryType" | "amount" | "reason" | "description" | "reference"> & {
    items: TransactItem[];
  },
): Promise<boolean> {
  const wallet = await storedWallet(organizationId);
  const units = toUnits(input.amount);
  const entry = ledgerEntry({
    ...input,
    amount: fromUnits(units),
    currency: wallet.currency,
    createdBy: "payments",
    createdAt: nowIso(),
  });
  try {
    await transact(
      new Transaction()
        .include("payment", ...input.items)
        .adopt(
          walletChange(organizationId, { balance: units, reserved: 0, available: units }, entry.createdAt),
          ledgerPut(organizationId, entry),
        ),
    );
    return true;
  } catch (error) {
    if (error instanceof TransactionConditionFailed && error.failedOnlyIn("payment")) return false;
    throw error;
  }
}

/** Operator: a signed correction of the balance (refunds, goodwill, test set-up); may not take it below the floor. */
export async function adjust(organizationId: string, amount: string, description: string): Promise<LedgerEntry> {
  const errors = [
    ...(/^-?(?:0|[1-9]\d*)(?:\.\d{1,4})?$/.test(amount) && !Money.isZero(amount)
      ? []
      : [
          {
            pointer: "/amount",
            detail: 'Must be a non-zero signed amount with at most 4 decimals, such as "-1.25".',
          },
        ]),
    ...(description.trim()
      ? []
      : [{ pointer: "/reason", detail: "A reason is required: it is the ledger entry's description." }]),
  ];
  if (errors.length) throw new ValidationError("The adjustment is not valid; see errors for each field.", errors);
  return credit(organizationId, {
    entryType: "Adjustment",
    amount,
    reason: "Adjustment",
    description,
    reference: null,
    createdBy: "operator",
  });
}

/** Operator: suspends the wallet (every new send and call is refused) or lifts the suspension. */
export async function setSuspended(
  organizationId: string,
  suspended: boolean,
  reason = "Suspended by the operator",
): Promise<Wallet> {
  await storedWallet(organizationId);
  const now = nowIso();
  await table.update(
    suspended
      ? WalletEntity.update({ organizationId }, { suspendedAt: now, suspendedReason: reason, modifiedAt: now })
      : WalletEntity.update({ organizationId }, { modifiedAt: now }, { remove: ["suspendedAt", "suspendedReason"] }),
  );
  // A shard's holds do not read the suspension: an empty shard sends every hold to the wallet item, which does.
  if (suspended) await gatherShards(organizationId);
  return wallet(organizationId);
}

/** `PUT /billing/wallet`: the caller's low-balance threshold. */
export async function updateSettings(actor: Actor, input: v.InferOutput<typeof WalletSettingsSchema>): Promise<Wallet> {
  await storedWallet(actor.organizationId);
  await table.update(
    WalletEntity.update(
      { organizationId: actor.organizationId },
      { lowBalanceThresholdUnits: toUnits(input.lowBalanceThreshold), modifiedAt: nowIso() },
    ),
  );
  return wallet(actor.organizationId);
}
