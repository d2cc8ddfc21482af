import { PhoneNumberFeeEntity } from "#core/db/entities/billing";
import { where } from "#core/db/expression";
import { part } from "#core/db/transact";
import * as Billing from "#core/billing/index";
import {
  billingMonth,
  phoneNumberFee,
  TransactionConditionFailed,
  type LedgerEntry,
  type TransactItem,
} from "#core/billing/index";
import { nowIso } from "#core/shared/ids";
import * as Money from "#core/shared/money";

/**
 * The monthly fee of each phone number (price `phoneNumberMonthly`). A number
 * pays the month it is added (prorated by day) when it is added, then every
 * billing month (UTC calendar month) it is still held, charged by the
 * `phoneNumberFees` schedule. Each (number, month) has a marker item put
 * conditionally in the charge's transaction, so a fee is charged at most once
 * however often the schedule fires.
 */

/** What the fee needs of a number. */
export interface BilledNumber {
  id: string;
  phoneNumber: string;
  createdAt: string;
}

/** `entry` is absent when the fee was charged already, or is zero (a free number: only the marker is written). */
export type FeeOutcome = { charged: boolean; entry?: LedgerEntry };

/**
 * The writes that charge a number being added for the rest of its first
 * month, to commit in the transaction that stores it. The wallet must cover
 * it: when the commit's wallet item fails, answer `refusal()` (402).
 */
export async function firstMonth(
  organizationId: string,
  number: BilledNumber,
  createdBy: string,
): Promise<{ items: TransactItem[]; fee: string; refusal: () => Promise<Error> }> {
  const plan = await feeItems(organizationId, number, billingMonth(new Date(number.createdAt)), {
    mustCover: true,
    createdBy,
  });
  return { items: plan.items, fee: plan.fee, refusal: () => Billing.refusal(organizationId, plan.fee) };
}

/**
 * Charges one number's fee for `month` unless it was charged already. It is
 * owed whatever the wallet holds: taken in full, even below the floor (see
 * `Billing.chargeItems`).
 */
export async function charge(organizationId: string, number: BilledNumber, month: string): Promise<FeeOutcome> {
  if (await isCharged(organizationId, number.id, month)) return { charged: false };
  const plan = await feeItems(organizationId, number, month, { mustCover: false, createdBy: "system" });
  try {
    await Billing.commit(plan.items);
    return { charged: true, ...(plan.entry ? { entry: plan.entry } : {}) };
  } catch (error) {
    // A concurrent run put the marker first.
    if (error instanceof TransactionConditionFailed && error.failed("fee")) return { charged: false };
    throw error;
  }
}

/** The marker (first item: its condition makes the charge happen once), then the wallet change and the ledger entry of a non-zero fee. */
async function feeItems(
  organizationId: string,
  number: BilledNumber,
  month: string,
  options: { mustCover: boolean; createdBy: string },
): Promise<{ items: TransactItem[]; fee: string; entry?: LedgerEntry }> {
  const fee = phoneNumberFee(await Billing.prices(organizationId), month, number.createdAt);
  const prorated = fee.days < fee.daysInMonth ? ` (prorated: ${fee.days} of ${fee.daysInMonth} days)` : "";
  const charge = Money.isZero(fee.amount)
    ? undefined
    : await Billing.chargeItems({
        organizationId,
        phoneNumberId: number.id,
        amount: fee.amount,
        reason: "PhoneNumberMonthly",
        description: `Phone number ${number.phoneNumber}, ${month}${prorated}`,
        quantity: fee.days,
        createdBy: options.createdBy,
        mustCover: options.mustCover,
      });
  const marker = part("fee", {
    Put: PhoneNumberFeeEntity.putAt(
      { organizationId, phoneNumberId: number.id, month },
      {
        phoneNumberId: number.id,
        phoneNumber: number.phoneNumber,
        month,
        amount: fee.amount,
        ledgerEntryId: charge?.entry.id ?? null,
        createdAt: nowIso(),
      },
      { condition: where.new() },
    ),
  });
  return { items: [marker, ...(charge?.items ?? [])], fee: fee.amount, ...(charge ? { entry: charge.entry } : {}) };
}

async function isCharged(organizationId: string, phoneNumberId: string, month: string): Promise<boolean> {
  return (await PhoneNumberFeeEntity.get({ organizationId, phoneNumberId, month }, { consistent: true })) !== undefined;
}
