/** The shapes billing answers and takes (wallet, ledger entry, wallet settings), its statuses, and the 402 a refused charge raises. */
import * as v from "valibot";
import { PriceListSchema } from "#core/billing/prices";
import type { ChargeReason } from "#core/billing/usage";
import { type TransactItem } from "#core/db/transact";
import { PaymentRequiredError } from "#core/errors";
import { timestamp } from "#core/shared/ids";
import * as Money from "#core/shared/money";
import { describedCheck, statedShape } from "#core/shared/validation";

export const walletStatuses = ["Active", "Low", "Empty", "Suspended"] as const;
export type WalletStatus = (typeof walletStatuses)[number];

/**
 * `billingStatus` of a message or call: its cost is held (Reserved), taken
 * (Charged), given back (Released), nothing to pay (NotBillable), or it was
 * refused before queueing (InsufficientFunds, WalletSuspended).
 */
export const billingStatuses = [
  "Reserved",
  "Charged",
  "Released",
  "NotBillable",
  "InsufficientFunds",
  "WalletSuspended",
] as const;
export type BillingStatus = (typeof billingStatuses)[number];

/** TopUp: a payment received; Refund and Dispute: money the payment provider took back; DisputeWon: a dispute's amount returned. */
export const ledgerEntryTypes = [
  "TrialCredit",
  "TopUp",
  "Charge",
  "Adjustment",
  "Refund",
  "Dispute",
  "DisputeWon",
] as const;
export type LedgerEntryType = (typeof ledgerEntryTypes)[number];

export const WalletSchema = v.object({
  organizationId: v.string(),
  currency: v.string(),
  /** Sum of every ledger entry. */
  balance: v.string(),
  /** Held for messages and calls in flight. */
  reservedAmount: v.string(),
  /** balance − reservedAmount: what new sends and calls can use. */
  availableBalance: v.string(),
  status: v.picklist(walletStatuses),
  lowBalanceThreshold: v.string(),
  /** The available balance never goes below this, except by a phone number's monthly fee owed (a debt a top-up repays). */
  floor: v.string(),
  suspendedAt: v.nullable(timestamp),
  suspendedReason: v.nullable(v.string()),
  prices: PriceListSchema,
  createdAt: timestamp,
  modifiedAt: v.nullable(timestamp),
});
export type Wallet = v.InferOutput<typeof WalletSchema>;

export const LedgerEntrySchema = v.object({
  id: v.string(),
  entryType: v.picklist(ledgerEntryTypes),
  /** Signed: credits positive, charges negative. */
  amount: v.string(),
  currency: v.string(),
  reason: v.string(),
  description: v.nullable(v.string()),
  relatedEntityType: v.nullable(v.string()),
  relatedEntityId: v.nullable(v.string()),
  messageId: v.nullable(v.string()),
  callId: v.nullable(v.string()),
  /** The phone number a monthly number fee (reason `PhoneNumberMonthly`) is for. */
  phoneNumberId: v.nullable(v.string()),
  /** Segments, billable seconds, or the days of a phone number's month the amount is for. */
  quantity: v.nullable(v.number()),
  reference: v.nullable(v.string()),
  createdBy: v.string(),
  createdAt: timestamp,
});
export type LedgerEntry = v.InferOutput<typeof LedgerEntrySchema>;

/** Largest single top-up (core/billing/payments.ts) and wallet threshold. */
export const MAX_TOP_UP = "10000.0000";

export const AMOUNT = /^(?:0|[1-9]\d*)(?:\.\d{1,4})?$/;

/** A decimal amount (string, or a JSON number) with at most 4 decimals, within [min, max]; one message per field. */
/* @__NO_SIDE_EFFECTS__ */
export function amountField(min: { value: string; inclusive: boolean }, max: string) {
  return v.pipe(
    v.union(
      [
        v.pipe(
          v.string(),
          statedShape({
            pattern: "^(?:0|[1-9]\\d{0,4})(?:\\.\\d{1,4})?$",
            description: `A decimal amount with at most 4 decimals, ${min.inclusive ? "from" : "above"} ${min.value} to ${max}.`,
          }),
        ),
        v.pipe(
          v.number(),
          describedCheck<number>(() => true, "", {
            ...(min.inclusive ? { minimum: Number(min.value) } : { exclusiveMinimum: Number(min.value) }),
            maximum: Number(max),
            multipleOf: 0.0001,
          }),
        ),
      ],
      'Must be a decimal amount such as "25.00".',
    ),
    v.transform((value) => String(value)),
    v.rawCheck(({ dataset, addIssue }) => {
      if (!dataset.typed) return;
      const value = dataset.value;
      if (!AMOUNT.test(value))
        addIssue({ message: 'Must be a non-negative amount with at most 4 decimals, such as "25.00".' });
      else if (Money.compare(value, min.value) < (min.inclusive ? 0 : 1))
        addIssue({ message: `Must be ${min.inclusive ? "at least" : "greater than"} ${min.value}.` });
      else if (Money.compare(value, max) > 0) addIssue({ message: `Must be at most ${max}.` });
    }),
  );
}

/** Body of `PUT /billing/wallet`. */
export const WalletSettingsSchema = v.strictObject({
  lowBalanceThreshold: amountField({ value: "0", inclusive: true }, MAX_TOP_UP),
});

/** A send or call refused by the wallet (402); `billingStatus` says why. */
export class WalletRefusedError extends PaymentRequiredError {
  constructor(
    readonly billingStatus: "InsufficientFunds" | "WalletSuspended",
    readonly walletStatus: WalletStatus,
    message: string,
  ) {
    super(message);
  }
}

/** What a message or call carries about its cost. */
export interface BillingOutcome {
  billingStatus: BillingStatus;
  /** Charged (or, while Reserved, held) amount; "0.0000" when released or not billable. */
  billableAmount: string;
}

export interface ReserveInput {
  organizationId: string;
  /** The message or call id: one reservation each, so a redelivered request cannot hold twice. */
  reservationId: string;
  amount: string;
  relatedEntityType: "Message" | "Call";
  /** The caller's own writes (e.g. storing the message), committed in the same transaction. */
  items?: TransactItem[];
  /** The hold recorded on its owner's own item instead of a Reservation item (a message's, issue 27). */
  onOwner?: HoldOnOwner;
}

/**
 * A hold kept on its owner's item (a message): settling or releasing it is a change of that item, which the owner
 * writes with its own change (a transaction cannot write one item twice), so the hold takes no item of its own.
 */
export interface HoldOnOwner {
  /**
   * The update of the owner's item that records the hold, on condition it holds none yet and can still be held for
   * (its "reservation" part of the transaction).
   */
  record: (hold: { amountUnits: number; walletShard?: number }) => TransactItem;
  /**
   * When that condition failed: the outcome of the hold the owner has, or undefined when it has none (it moved on:
   * `OwnerMovedOnError`).
   */
  stored: () => Promise<BillingOutcome | undefined>;
}

/** A hold on its owner's item refused because the owner can no longer be held for (ended, or handed over unheld). */
export class OwnerMovedOnError extends Error {
  constructor(reservationId: string) {
    super(`${reservationId} can no longer be held for: it moved on.`);
    this.name = "OwnerMovedOnError";
  }
}

export interface SettleInput {
  organizationId: string;
  reservationId: string;
  /** Actual cost; the charge is this, capped at what was reserved. */
  amount: string;
  reason: ChargeReason;
  description?: string;
  quantity?: number;
  /** The wallet's currency when the caller read the prices already (one read less); else read here. */
  currency?: string;
}

export interface ChargeInput {
  organizationId: string;
  phoneNumberId: string;
  amount: string;
  reason: "PhoneNumberMonthly";
  description: string;
  quantity: number;
  createdBy: string;
  /** Refuse unless the wallet covers it (a purchase), or take it in full even into debt (a fee already owed). */
  mustCover: boolean;
}

export interface StoredWallet {
  currency: string;
  balanceUnits: number;
  reservedUnits: number;
  availableUnits: number;
  lowBalanceThresholdUnits: number;
  suspendedAt?: string;
  suspendedReason?: string;
  createdAt: string;
  modifiedAt?: string;
}

export interface StoredReservation {
  reservationId: string;
  state: "Reserved" | "Settled" | "Released";
  amountUnits: number;
  chargedUnits?: number;
  relatedEntityType: string;
  /** The wallet shard the hold was taken from; absent for a hold on the wallet item. */
  walletShard?: number;
  /** Kept on its owner's item (`HoldOnOwner`): its settlement's writes leave closing it to the owner's own change. */
  onOwner?: boolean;
}
