import * as v from "valibot";
import { table } from "#core/db/items";
import type { Actor } from "#core/auth/actor";
import {
  BALANCE_FLOOR,
  DEFAULT_LOW_BALANCE_THRESHOLD,
  DEFAULT_PRICES,
  DEFAULT_TRIAL_CREDIT,
  fromUnits,
  PriceListSchema,
  PriceOverridesSchema,
  toUnits,
  type PriceList,
  type PriceOverrides,
} from "#core/billing/prices";
import { transact, TransactionConditionFailed, type TransactItem } from "#core/db/transact";
import { entities, keys } from "#core/db/keys";
import { indexOrder, keyOrder, listPage, type ListResource, listQuerySchema } from "#core/db/list";
import { PaymentRequiredError, ValidationError } from "#core/errors";
import { newId, nowIso, timestamp } from "#core/shared/ids";
import * as Money from "#core/shared/money";
import { type Page, type PagingQuery } from "#core/shared/paging";
import { describedCheck, statedShape, toFieldErrors } from "#core/shared/validation";
import { environmentNames } from "#stacks/definitions";

export type { TransactItem } from "#core/db/transact";
export { TransactionConditionFailed } from "#core/db/transact";
export * from "#core/billing/prices";

export const walletStatuses = ["Active", "Low", "Empty", "Suspended"] as const;
export type WalletStatus = (typeof walletStatuses)[number];

/**
 * `billingStatus` of a message or call: its cost is held (Reserved), taken
 * (Charged), given back (Released), nothing to pay (NotBillable), or it was
 * refused before queueing (InsufficientFunds, WalletSuspended).
 */
export const billingStatuses = ["Reserved", "Charged", "Released", "NotBillable", "InsufficientFunds", "WalletSuspended"] as const;
export type BillingStatus = (typeof billingStatuses)[number];

/** TopUp: a payment received; Refund and Dispute: money the payment provider took back; DisputeWon: a dispute's amount returned. */
export const ledgerEntryTypes = ["TrialCredit", "TopUp", "Charge", "Adjustment", "Refund", "Dispute", "DisputeWon"] as const;
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

const AMOUNT = /^(?:0|[1-9]\d*)(?:\.\d{1,4})?$/;

/** A decimal amount (string, or a JSON number) with at most 4 decimals, within [min, max]; one message per field. */
function amountField(min: { value: string; inclusive: boolean }, max: string) {
  return v.pipe(
    v.union(
      [
        v.pipe(v.string(), statedShape({ pattern: "^(?:0|[1-9]\\d{0,4})(?:\\.\\d{1,4})?$", description: `A decimal amount with at most 4 decimals, ${min.inclusive ? "from" : "above"} ${min.value} to ${max}.` })),
        v.pipe(v.number(), describedCheck<number>(() => true, "", { ...(min.inclusive ? { minimum: Number(min.value) } : { exclusiveMinimum: Number(min.value) }), maximum: Number(max), multipleOf: 0.0001 })),
      ],
      "Must be a decimal amount such as \"25.00\".",
    ),
    v.transform((value) => String(value)),
    v.rawCheck(({ dataset, addIssue }) => {
      if (!dataset.typed) return;
      const value = dataset.value;
      if (!AMOUNT.test(value)) addIssue({ message: "Must be a non-negative amount with at most 4 decimals, such as \"25.00\"." });
      else if (Money.compare(value, min.value) < (min.inclusive ? 0 : 1)) addIssue({ message: `Must be ${min.inclusive ? "at least" : "greater than"} ${min.value}.` });
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
}

export interface SettleInput {
  organizationId: string;
  reservationId: string;
  /** Actual cost; the charge is this, capped at what was reserved. */
  amount: string;
  reason: string;
  description?: string;
  quantity?: number;
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

interface StoredWallet {
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

interface StoredReservation {
  reservationId: string;
  state: "Reserved" | "Settled" | "Released";
  amountUnits: number;
  chargedUnits?: number;
  relatedEntityType: string;
}

const floorUnits = () => toUnits(BALANCE_FLOOR);

function trialCredit(): string {
  const configured = process.env[environmentNames.billingTrialCredit];
  return configured && Money.isDecimal(configured) ? Money.toBilling(configured) : DEFAULT_TRIAL_CREDIT;
}

const ledgerResource: ListResource<LedgerEntry> = {
  name: "ledger",
  fields: {
    entryType: { get: (e) => e.entryType, kind: "string", filter: true },
    reason: { get: (e) => e.reason, kind: "string", filter: true },
    relatedEntityType: { get: (e) => e.relatedEntityType, kind: "string", filter: true },
    relatedEntityId: { get: (e) => e.relatedEntityId, kind: "string", filter: true },
    messageId: { get: (e) => e.messageId, kind: "string", filter: true },
    callId: { get: (e) => e.callId, kind: "string", filter: true },
    phoneNumberId: { get: (e) => e.phoneNumberId, kind: "string", filter: true },
    amount: { get: (e) => e.amount, kind: "decimal", sort: true, range: true },
    description: { get: (e) => e.description, kind: "string", search: true },
    reference: { get: (e) => e.reference, kind: "string", filter: true, search: true },
    createdAt: { get: (e) => e.createdAt, kind: "date", sort: true, range: true },
  },
  defaultOrder: [{ field: "createdAt", direction: "desc" }],
  idOf: (e) => e.id,
  fromItem: toLedgerEntry,
  candidates: (organizationId) => {
    const { pk, skPrefix } = keys.ledgerPrefix(organizationId);
    return { KeyConditionExpression: "pk = :pk AND begins_with(sk, :prefix)", ExpressionAttributeValues: { ":pk": pk, ":prefix": skPrefix } };
  },
  orders: { createdAt: keyOrder(keys.ledgerPrefix), amount: indexOrder("sortedByPrice", keys.ledgerByAmountPartition) },
};

export const ListLedgerSchema = listQuerySchema(ledgerResource);

/**
 * The prepaid wallet of each organization. The wallet item holds the balance,
 * the reserved amount and the available amount (balance − reserved) in integer
 * units of 0.0001; every change of the balance is one transaction that also
 * writes its ledger entry, so the balance always equals the ledger's sum.
 */
export const Billing = {
  /** The wallet (opened with the trial credit on first use). */
  async wallet(organizationId: string): Promise<Wallet> {
    const [stored, prices] = await Promise.all([storedWallet(organizationId), Billing.prices(organizationId)]);
    return toWallet(organizationId, stored, prices);
  },

  /** The organization's price list: the defaults, overridden field by field by the operator. */
  async prices(organizationId: string): Promise<PriceList> {
    const { Item } = await table.get({ Key: keys.priceList(organizationId) });
    if (!Item) return DEFAULT_PRICES;
    const overrides = Object.fromEntries(Object.keys(DEFAULT_PRICES).filter((field) => Item[field] !== undefined).map((field) => [field, Item[field]]));
    return { ...DEFAULT_PRICES, ...overrides } as PriceList;
  },

  /** Operator: overrides some prices of one organization (a ValidationError names each bad field). */
  async setPrices(organizationId: string, overrides: PriceOverrides): Promise<PriceList> {
    const parsed = v.safeParse(PriceOverridesSchema, overrides);
    if (!parsed.success) throw new ValidationError("The prices are not valid; see errors for each field.", toFieldErrors(parsed.issues));
    const current = await Billing.prices(organizationId);
    const next = v.parse(PriceListSchema, { ...current, ...parsed.output });
    await table.put({ Item: { ...keys.priceList(organizationId), entity: entities.priceList, ...next, modifiedAt: nowIso() } });
    return next;
  },

  /**
   * A movement of money decided by the payment provider (a payment received,
   * a refund, a dispute): its ledger entry and the balance change, committed
   * with the payment's own records in `items`, whose conditions make it happen
   * once. It is never refused for the floor: the money already moved at the
   * provider, so the wallet records it (and core/billing/payments.ts suspends a
   * wallet it leaves short). False when `items`' conditions show it was recorded before.
   */
  async recordPayment(
    organizationId: string,
    input: Pick<LedgerEntry, "entryType" | "amount" | "reason" | "description" | "reference"> & { items: TransactItem[] },
  ): Promise<boolean> {
    const wallet = await storedWallet(organizationId);
    const units = toUnits(input.amount);
    const entry = ledgerEntry({ ...input, amount: fromUnits(units), currency: wallet.currency, createdBy: "payments", createdAt: nowIso() });
    try {
      await transact([...input.items, walletChange(organizationId, { balance: units, reserved: 0, available: units }, entry.createdAt), ledgerPut(organizationId, entry)]);
      return true;
    } catch (error) {
      if (error instanceof TransactionConditionFailed && error.failedIndexes.every((index) => index < input.items.length)) return false;
      throw error;
    }
  },

  /** Operator: a signed correction of the balance (refunds, goodwill, test set-up); may not take it below the floor. */
  async adjust(organizationId: string, amount: string, description: string): Promise<LedgerEntry> {
    const errors = [
      ...(/^-?(?:0|[1-9]\d*)(?:\.\d{1,4})?$/.test(amount) && !Money.isZero(amount) ? [] : [{ pointer: "/amount", detail: "Must be a non-zero signed amount with at most 4 decimals, such as \"-1.25\"." }]),
      ...(description.trim() ? [] : [{ pointer: "/reason", detail: "A reason is required: it is the ledger entry's description." }]),
    ];
    if (errors.length) throw new ValidationError("The adjustment is not valid; see errors for each field.", errors);
    return credit(organizationId, { entryType: "Adjustment", amount, reason: "Adjustment", description, reference: null, createdBy: "operator" });
  },

  /** Operator: suspends the wallet (every new send and call is refused) or lifts the suspension. */
  async setSuspended(organizationId: string, suspended: boolean, reason = "Suspended by the operator"): Promise<Wallet> {
    await storedWallet(organizationId);
    await table.update({
      Key: keys.wallet(organizationId),
      UpdateExpression: suspended ? "SET suspendedAt = :now, suspendedReason = :reason, modifiedAt = :now" : "SET modifiedAt = :now REMOVE suspendedAt, suspendedReason",
      ExpressionAttributeValues: suspended ? { ":now": nowIso(), ":reason": reason } : { ":now": nowIso() },
    });
    return Billing.wallet(organizationId);
  },

  /** `PUT /billing/wallet`: the caller's low-balance threshold. */
  async updateSettings(actor: Actor, input: v.InferOutput<typeof WalletSettingsSchema>): Promise<Wallet> {
    await storedWallet(actor.organizationId);
    await table.update({
      Key: keys.wallet(actor.organizationId),
      UpdateExpression: "SET lowBalanceThresholdUnits = :threshold, modifiedAt = :now",
      ExpressionAttributeValues: { ":threshold": toUnits(input.lowBalanceThreshold), ":now": nowIso() },
    });
    return Billing.wallet(actor.organizationId);
  },

  /** `POST /billing/ledger/all/my`: every credit and charge, newest first by default. */
  async ledger(actor: Actor, query: PagingQuery): Promise<Page<LedgerEntry>> {
    await storedWallet(actor.organizationId);
    return listPage(ledgerResource, actor.organizationId, query);
  },

  /**
   * Holds the estimated cost of a message or call while it is queued, in one
   * transaction with the caller's `items`: refused (WalletRefusedError, 402)
   * when the wallet is suspended or available − amount would fall below the
   * floor. Repeating a reservation id holds nothing more (the first one stands).
   */
  async reserve(input: ReserveInput): Promise<BillingOutcome> {
    const units = toUnits(input.amount);
    const now = nowIso();
    const items: TransactItem[] = [
      {
        Update: {
          Key: keys.wallet(input.organizationId),
          UpdateExpression: "SET availableUnits = availableUnits - :units, reservedUnits = reservedUnits + :units, modifiedAt = :now",
          ConditionExpression: "attribute_exists(pk) AND attribute_not_exists(suspendedAt) AND availableUnits >= :needed",
          ExpressionAttributeValues: { ":units": units, ":needed": units + floorUnits(), ":now": now },
        },
      },
      {
        Put: {
          Item: {
            ...keys.reservation(input.organizationId, input.reservationId),
            entity: entities.reservation,
            reservationId: input.reservationId,
            state: "Reserved",
            amountUnits: units,
            relatedEntityType: input.relatedEntityType,
            createdAt: now,
            ...holdCheckEntry(input.organizationId, input.reservationId, Date.parse(now) + HOLD_CHECK_AFTER_MS),
          },
          ConditionExpression: "attribute_not_exists(pk)",
        },
      },
      ...(input.items ?? []),
    ];
    for (let attempt = 0; ; attempt++) {
      try {
        await transact(items);
        return { billingStatus: "Reserved", billableAmount: fromUnits(units) };
      } catch (error) {
        if (!(error instanceof TransactionConditionFailed)) throw error;
        if (error.failedIndexes.includes(1)) {
          const existing = await storedReservation(input.organizationId, input.reservationId);
          if (existing) return outcomeOf(existing);
        }
        if (!error.failedIndexes.includes(0)) throw error;
        const wallet = await storedWallet(input.organizationId);
        if (attempt === 0 && wallet.availableUnits >= units + floorUnits() && !wallet.suspendedAt) continue; // just opened
        throw refusal(input.organizationId, wallet, units);
      }
    }
  },

  /**
   * The writes that settle a reservation (charge the actual cost, capped at
   * what was held, and free the rest), to commit together with the usage
   * record. No items when it was already settled or released.
   */
  async settlement(input: SettleInput & { relatedEntityId: string; createdBy?: string }): Promise<{ items: TransactItem[]; outcome: BillingOutcome }> {
    const reservation = await storedReservation(input.organizationId, input.reservationId);
    if (!reservation) return { items: [], outcome: { billingStatus: "NotBillable", billableAmount: "0.0000" } };
    if (reservation.state !== "Reserved") return { items: [], outcome: outcomeOf(reservation) };
    const charged = Math.max(0, Math.min(toUnits(input.amount), reservation.amountUnits));
    const now = nowIso();
    const entry: LedgerEntry | undefined =
      charged > 0
        ? ledgerEntry({
            entryType: "Charge",
            amount: fromUnits(-charged),
            currency: (await Billing.prices(input.organizationId)).currency,
            reason: input.reason,
            description: input.description ?? null,
            relatedEntityType: reservation.relatedEntityType,
            relatedEntityId: input.relatedEntityId,
            messageId: reservation.relatedEntityType === "Message" ? input.relatedEntityId : null,
            callId: reservation.relatedEntityType === "Call" ? input.relatedEntityId : null,
            quantity: input.quantity ?? null,
            createdBy: input.createdBy ?? "system",
            createdAt: now,
          })
        : undefined;
    const items: TransactItem[] = [
      closeReservation(input.organizationId, input.reservationId, "Settled", charged, now),
      walletChange(input.organizationId, { balance: -charged, reserved: -reservation.amountUnits, available: reservation.amountUnits - charged }, now),
      ...(entry ? [ledgerPut(input.organizationId, entry)] : []),
    ];
    return { items, outcome: { billingStatus: charged > 0 ? "Charged" : "Released", billableAmount: fromUnits(charged) } };
  },

  /** The writes that give a reservation back (the message or call never reached the provider, or failed). */
  async releaseItems(organizationId: string, reservationId: string): Promise<{ items: TransactItem[]; outcome: BillingOutcome }> {
    const reservation = await storedReservation(organizationId, reservationId);
    if (!reservation) return { items: [], outcome: { billingStatus: "NotBillable", billableAmount: "0.0000" } };
    if (reservation.state !== "Reserved") return { items: [], outcome: outcomeOf(reservation) };
    const now = nowIso();
    return {
      items: [
        closeReservation(organizationId, reservationId, "Released", 0, now),
        walletChange(organizationId, { balance: 0, reserved: -reservation.amountUnits, available: reservation.amountUnits }, now),
      ],
      outcome: { billingStatus: "Released", billableAmount: "0.0000" },
    };
  },

  /**
   * The writes of a charge that belongs to no reservation (a phone number's
   * monthly fee), to commit with the caller's own items (its once-only marker):
   * the wallet change (first item) and the ledger entry. `mustCover` (a
   * purchase): the wallet item's condition fails unless the wallet is not
   * suspended and the available balance stays at or above the floor (answer
   * `Billing.refusal`). Otherwise (a fee already owed) it is taken in full, even
   * below the floor: the negative balance is the debt, and the wallet is Empty
   * until a top-up covers it.
   */
  async chargeItems(input: ChargeInput): Promise<{ items: TransactItem[]; entry: LedgerEntry }> {
    const wallet = await storedWallet(input.organizationId);
    const units = toUnits(input.amount);
    const entry = ledgerEntry({
      entryType: "Charge",
      amount: fromUnits(-units),
      currency: wallet.currency,
      reason: input.reason,
      description: input.description,
      relatedEntityType: "PhoneNumber",
      relatedEntityId: input.phoneNumberId,
      phoneNumberId: input.phoneNumberId,
      quantity: input.quantity,
      createdBy: input.createdBy,
      createdAt: nowIso(),
    });
    const change = walletChange(input.organizationId, { balance: -units, reserved: 0, available: -units }, entry.createdAt);
    if (input.mustCover) requireCover(change, units, { refuseSuspended: true });
    return { items: [change, ledgerPut(input.organizationId, entry)], entry };
  },

  /** The 402 for a charge of `amount` the wallet refused (suspended, or not enough available). */
  async refusal(organizationId: string, amount: string): Promise<WalletRefusedError> {
    return refusal(organizationId, await storedWallet(organizationId), toUnits(amount));
  },

  /** Settles on its own (no usage record to write with it); idempotent. */
  async settle(input: SettleInput & { relatedEntityId: string; items?: TransactItem[] }): Promise<BillingOutcome> {
    return commitWithRetry(() => Billing.settlement(input), input.items);
  },

  /** Releases on its own; idempotent. */
  async release(organizationId: string, reservationId: string, extra?: TransactItem[]): Promise<BillingOutcome> {
    return commitWithRetry(() => Billing.releaseItems(organizationId, reservationId), extra);
  },

  /** Commits billing items together with the caller's (retrying conflicts). */
  commit: transact,
};

/** How long after a hold is taken (and then between looks) the hold sweeper checks that its owner still needs it. */
export const HOLD_CHECK_AFTER_MS = 60 * 60 * 1000;

export const holdShards = [0, 1, 2, 3] as const;

/** The gsi3 entry of an open hold, due for the hold sweeper at `dueAtMs`. */
export function holdCheckEntry(organizationId: string, reservationId: string, dueAtMs: number) {
  let hash = 0;
  for (const character of reservationId) hash = (hash * 31 + character.charCodeAt(0)) >>> 0;
  return keys.dueHold(hash % holdShards.length, new Date(dueAtMs).toISOString(), organizationId, reservationId);
}

/** Recomputes and commits until the reservation's own condition holds (a concurrent settle wins cleanly). */
async function commitWithRetry(
  plan: () => Promise<{ items: TransactItem[]; outcome: BillingOutcome }>,
  extra: TransactItem[] = [],
): Promise<BillingOutcome> {
  for (let attempt = 0; attempt < 5; attempt++) {
    const { items, outcome } = await plan();
    if (items.length === 0 && extra.length === 0) return outcome;
    try {
      await transact([...items, ...extra]);
      return outcome;
    } catch (error) {
      if (!(error instanceof TransactionConditionFailed) || !error.failedIndexes.includes(0)) throw error;
    }
  }
  throw new Error("The reservation kept changing while it was being settled.");
}

function closeReservation(organizationId: string, reservationId: string, state: "Settled" | "Released", charged: number, now: string): TransactItem {
  return {
    Update: {
      Key: keys.reservation(organizationId, reservationId),
      // The closed hold leaves the hold sweeper's index (gsi3).
      UpdateExpression: "SET #state = :state, chargedUnits = :charged, closedAt = :now REMOVE gsi3pk, gsi3sk",
      ConditionExpression: "#state = :reserved",
      ExpressionAttributeNames: { "#state": "state" },
      ExpressionAttributeValues: { ":state": state, ":charged": charged, ":now": now, ":reserved": "Reserved" },
    },
  };
}

function walletChange(organizationId: string, delta: { balance: number; reserved: number; available: number }, now: string): TransactItem {
  return {
    Update: {
      Key: keys.wallet(organizationId),
      UpdateExpression: "SET modifiedAt = :now ADD balanceUnits :balance, reservedUnits :reserved, availableUnits :available",
      ConditionExpression: "attribute_exists(pk)",
      ExpressionAttributeValues: { ":now": now, ":balance": delta.balance, ":reserved": delta.reserved, ":available": delta.available },
    },
  };
}

function ledgerPut(organizationId: string, entry: LedgerEntry): TransactItem {
  return {
    Put: {
      Item: {
        ...keys.ledgerEntry(organizationId, entry.id),
        ...keys.ledgerByAmount(organizationId, entry.amount, entry.id),
        entity: entities.ledgerEntry,
        amountUnits: toUnits(entry.amount),
        ...entry,
      },
      ConditionExpression: "attribute_not_exists(pk)",
    },
  };
}

/** A ledger entry with every reference it does not name empty. */
function ledgerEntry(fields: Pick<LedgerEntry, "entryType" | "amount" | "currency" | "reason" | "createdBy" | "createdAt"> & Partial<LedgerEntry>): LedgerEntry {
  return {
    id: newId(),
    description: null,
    relatedEntityType: null,
    relatedEntityId: null,
    messageId: null,
    callId: null,
    phoneNumberId: null,
    quantity: null,
    reference: null,
    ...fields,
  };
}

/** Makes a wallet change that takes `units` conditional on the available balance staying at or above the floor (and, for usage, on the wallet not being suspended). */
function requireCover(change: TransactItem, units: number, options: { refuseSuspended: boolean }): TransactItem {
  change.Update!.ConditionExpression = `attribute_exists(pk)${options.refuseSuspended ? " AND attribute_not_exists(suspendedAt)" : ""} AND availableUnits >= :needed`;
  change.Update!.ExpressionAttributeValues![":needed"] = units + floorUnits();
  return change;
}

/** A credit (or signed adjustment) and its ledger entry in one transaction; never takes available below the floor. */
async function credit(
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
    if (error instanceof TransactionConditionFailed && error.failedIndexes.includes(0)) {
      throw new ValidationError("The adjustment would take the available balance below the floor.", [
        { pointer: "/amount", detail: `At most ${fromUnits(wallet.availableUnits - floorUnits())} can be taken.` },
      ]);
    }
    throw error;
  }
  return entry;
}

/** Reads the wallet, opening it (with the trial credit and its ledger entry) the first time. */
async function storedWallet(organizationId: string): Promise<StoredWallet> {
  const read = async () =>
    (await table.get({ Key: keys.wallet(organizationId), ConsistentRead: true })).Item as
      | StoredWallet
      | undefined;
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

async function storedReservation(organizationId: string, reservationId: string): Promise<StoredReservation | undefined> {
  const { Item } = await table.get({ Key: keys.reservation(organizationId, reservationId), ConsistentRead: true });
  return Item as StoredReservation | undefined;
}

function outcomeOf(reservation: StoredReservation): BillingOutcome {
  switch (reservation.state) {
    case "Reserved":
      return { billingStatus: "Reserved", billableAmount: fromUnits(reservation.amountUnits) };
    case "Settled":
      return { billingStatus: (reservation.chargedUnits ?? 0) > 0 ? "Charged" : "Released", billableAmount: fromUnits(reservation.chargedUnits ?? 0) };
    case "Released":
      return { billingStatus: "Released", billableAmount: "0.0000" };
  }
}

function walletStatus(stored: StoredWallet): WalletStatus {
  if (stored.suspendedAt) return "Suspended";
  if (stored.availableUnits <= floorUnits()) return "Empty";
  if (stored.availableUnits < stored.lowBalanceThresholdUnits) return "Low";
  return "Active";
}

function refusal(organizationId: string, stored: StoredWallet, units: number): WalletRefusedError {
  const status = walletStatus(stored);
  if (status === "Suspended") {
    return new WalletRefusedError("WalletSuspended", status, `The wallet of organization ${organizationId} is suspended: ${stored.suspendedReason ?? "contact support"}.`);
  }
  return new WalletRefusedError(
    "InsufficientFunds",
    status,
    `The available balance ${fromUnits(stored.availableUnits)} ${stored.currency} cannot cover the estimated cost ${fromUnits(units)}; top up the wallet.`,
  );
}

function toWallet(organizationId: string, stored: StoredWallet, prices: PriceList): Wallet {
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

function toLedgerEntry(item: Record<string, unknown>): LedgerEntry {
  const field = <T>(name: string) => (item[name] ?? null) as T;
  return {
    id: field("id"),
    entryType: field("entryType"),
    amount: field("amount"),
    currency: field("currency"),
    reason: field("reason"),
    description: field("description"),
    relatedEntityType: field("relatedEntityType"),
    relatedEntityId: field("relatedEntityId"),
    messageId: field("messageId"),
    callId: field("callId"),
    phoneNumberId: field("phoneNumberId"),
    quantity: field("quantity"),
    reference: field("reference"),
    createdBy: field("createdBy"),
    createdAt: field("createdAt"),
  };
}
