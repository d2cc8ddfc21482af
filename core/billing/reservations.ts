/** Holds on the wallet: reserved while a message or call is under way, then settled (charged) or released, once. */
import { dueWorkShards } from "#core/db/due";
import { ledgerEntry } from "#core/billing/ledger";
import { chargeWrites, commitCharges, shardUsage } from "#core/billing/usage";
import {
  floorUnits,
  storedWallet,
  storedWalletParts,
  totalOf,
  refusal as walletRefusal,
  storedPrices,
  walletChange,
  walletPartUpdate,
  refillItems,
} from "#core/billing/wallet-store";
import {
  drainShards,
  noteRunningLow,
  runningLow,
  randomShard,
  refillChunk,
  refillShard,
  fundedShard,
  noteFundedShards,
  shardsHoldMoney,
} from "#core/billing/wallet-shards";
import {
  type BillingOutcome,
  type StoredReservation,
  type ReserveInput,
  type SettleInput,
  type LedgerEntry,
  type ChargeInput,
  OwnerMovedOnError,
  WalletRefusedError,
} from "#core/billing/schemas";
import { ReservationEntity } from "#core/db/entities/billing";
import { computed, where } from "#core/db/expression";
import { fromUnits, toUnits } from "#core/billing/prices";
import { part, transact, Transaction, TransactionConditionFailed, type TransactItem } from "#core/db/transact";
import { oneItem, type PlannedRead } from "#core/db/items";
import { nowIso } from "#core/shared/ids";

/** How long after a hold is taken (and then between looks) the hold sweeper checks that its owner still needs it. */
export const HOLD_CHECK_AFTER_MS = 60 * 60 * 1000;

export const holdShards = dueWorkShards;

/** The hold sweeper's index entry of an open hold, due at `dueAtMs`. */
export function holdCheckEntry(organizationId: string, reservationId: string, dueAtMs: number) {
  return ReservationEntity.entryIn("holdCheck", {
    organizationId,
    reservationId,
    dueAt: new Date(dueAtMs).toISOString(),
  });
}

/** Recomputes and commits until the reservation's own condition holds (a concurrent settle wins cleanly). */
export async function commitWithRetry(
  plan: () => Promise<{ items: TransactItem[]; outcome: BillingOutcome }>,
  extra: TransactItem[] = [],
): Promise<BillingOutcome> {
  for (let attempt = 0; attempt < 5; attempt++) {
    const { items, outcome } = await plan();
    if (items.length === 0 && extra.length === 0) return outcome;
    try {
      await commitCharges(new Transaction().adopt(...items, ...extra));
      return outcome;
    } catch (error) {
      if (!(error instanceof TransactionConditionFailed) || !error.failed("reservation")) throw error;
    }
  }
  throw new Error("The reservation kept changing while it was being settled.");
}

export function closeReservation(
  organizationId: string,
  reservationId: string,
  state: "Settled" | "Released",
  charged: number,
  now: string,
): TransactItem {
  return part("reservation", {
    // Closed once (only from Reserved), and the closed hold leaves the hold sweeper's index.
    Update: ReservationEntity.update(
      { organizationId, reservationId },
      { state, chargedUnits: charged, closedAt: now },
      { condition: where.equals("state", "Reserved"), leave: ["holdCheck"] },
    ),
  });
}

export async function storedReservation(
  organizationId: string,
  reservationId: string,
): Promise<StoredReservation | undefined> {
  return (await ReservationEntity.get({ organizationId, reservationId }, { consistent: true })) as
    StoredReservation | undefined;
}

/** `storedReservation`'s read (consistent), for a batch with the caller's other reads (`readTogether`). */
export const reservationRead = (
  organizationId: string,
  reservationId: string,
): PlannedRead<StoredReservation | undefined> =>
  oneItem(ReservationEntity.key({ organizationId, reservationId }), (item) => item as StoredReservation | undefined);

export function outcomeOf(reservation: StoredReservation): BillingOutcome {
  switch (reservation.state) {
    case "Reserved":
      return { billingStatus: "Reserved", billableAmount: fromUnits(reservation.amountUnits) };
    case "Settled":
      return {
        billingStatus: (reservation.chargedUnits ?? 0) > 0 ? "Charged" : "Released",
        billableAmount: fromUnits(reservation.chargedUnits ?? 0),
      };
    case "Released":
      return { billingStatus: "Released", billableAmount: "0.0000" };
  }
}

/**
 * One try at holding `units` on `shard` (or on the wallet item), with the reservation and the caller's items in one
 * transaction: the outcome, or undefined when that item cannot cover it. A shard has no floor of its own (its money
 * was above the wallet's floor when it moved), and a shard with nothing available refuses even a free hold, so a
 * suspended wallet (whose shards are drained) is always asked.
 */
async function holdOn(
  input: ReserveInput,
  units: number,
  shard: number | undefined,
  refill?: { chunk: number; funded: number },
): Promise<BillingOutcome | undefined> {
  const now = nowIso();
  const onShard = shard !== undefined;
  const transaction = new Transaction();
  if (refill && onShard)
    transaction.adopt(...refillItems(input.organizationId, shard, refill.chunk, refill.funded, { units, now }));
  else
    transaction.update(
      "wallet",
      walletPartUpdate(
        input.organizationId,
        shard,
        {
          availableUnits: computed.increment(-units),
          reservedUnits: computed.increment(units),
          modifiedAt: now,
        },
        onShard
          ? where.all(where.stored(), where.atLeast("availableUnits", units), where.after("availableUnits", 0))
          : where.all(
              where.stored(),
              where.absent("suspendedAt"),
              where.atLeast("availableUnits", units + floorUnits()),
            ),
      ),
    );
  if (input.onOwner)
    transaction.include(
      "reservation",
      input.onOwner.record({ amountUnits: units, ...(onShard ? { walletShard: shard } : {}) }),
    );
  else
    transaction.put(
      "reservation",
      ReservationEntity.putAt(
        { organizationId: input.organizationId, reservationId: input.reservationId },
        {
          reservationId: input.reservationId,
          state: "Reserved",
          amountUnits: units,
          relatedEntityType: input.relatedEntityType,
          createdAt: now,
          ...(onShard ? { walletShard: shard } : {}),
          ...holdCheckEntry(input.organizationId, input.reservationId, Date.parse(now) + HOLD_CHECK_AFTER_MS),
        },
        { condition: where.new() },
      ),
    );
  transaction.adopt(...(input.items ?? []));
  try {
    await transact(transaction);
    return { billingStatus: "Reserved", billableAmount: fromUnits(units) };
  } catch (error) {
    if (!(error instanceof TransactionConditionFailed)) throw error;
    if (error.failed("reservation")) {
      if (input.onOwner) {
        // Held already (a retry of the same send); else its owner moved on, and nothing may go out unheld for it.
        const held = await input.onOwner.stored();
        if (held) return held;
        throw new OwnerMovedOnError(input.reservationId);
      }
      const existing = await storedReservation(input.organizationId, input.reservationId);
      if (existing) return outcomeOf(existing);
    }
    if (!error.failed("wallet") && !error.failed("refill")) throw error;
    return undefined;
  }
}

/**
 * Holds and their settlement: what messaging and calls use to reserve the
 * cost of a send or call, then charge or release it, each together with the
 * caller's own writes. (`Billing` exposes these beside the wallet.)
 */

/**
 * Holds the estimated cost of a message or call while it is queued, in one
 * transaction with the caller's `items`: refused (WalletRefusedError, 402)
 * when the wallet is suspended or available − amount would fall below the
 * floor. Repeating a reservation id holds nothing more (the first one stands).
 */
export async function reserve(input: ReserveInput): Promise<BillingOutcome> {
  const units = toUnits(input.amount);
  const organizationId = input.organizationId;
  if (!runningLow(organizationId)) {
    // A shard this instance last saw funded: one write. Else (or it ran dry) one read of every part, then one write:
    // the hold on a shard that has the money, or a refill of an empty one with the hold taken from it, together.
    const hinted = fundedShard(organizationId);
    if (hinted !== undefined) {
      const onShard = await holdOn(input, units, hinted);
      if (onShard) return onShard;
    }
    const parts = await storedWalletParts(organizationId);
    noteFundedShards(organizationId, parts, units);
    const roomy = fundedShard(organizationId);
    const refill = roomy === undefined ? refillChunk(parts.main, units, floorUnits()) : undefined;
    const shard = roomy ?? randomShard();
    if (roomy !== undefined || refill) {
      const held = await holdOn(input, units, shard, refill);
      if (held) {
        if (refill) noteFundedShards(organizationId, parts, units, shard);
        return held;
      }
    }
    if (roomy === undefined) {
      // The refill lost to another (or the wallet is not funded well enough): as before, from fresh reads.
      const refilled = refill ? await refillShard(organizationId, parts, shard, units, floorUnits()) : "unfunded";
      if (refilled === "refilled") {
        const onRefilled = await holdOn(input, units, shard);
        if (onRefilled) return onRefilled;
      } else if (refilled === "unfunded") noteRunningLow(organizationId);
    }
  }
  // A wallet running low: holds come from the wallet item, as before shards. Refused only when a fresh read of every
  // item shows the money is not there; money left on shards is used where it is, or given back to the wallet item.
  for (let attempt = 0; attempt < 10; attempt++) {
    const onWallet = await holdOn(input, units, undefined);
    if (onWallet) return onWallet;
    const parts = await storedWalletParts(input.organizationId);
    const total = totalOf(parts);
    if (total.suspendedAt || total.availableUnits < units + floorUnits())
      throw walletRefusal(input.organizationId, total, units);
    const roomy = [...parts.shards].find(([, sub]) => sub.availableUnits >= units);
    const onRoomy = roomy ? await holdOn(input, units, roomy[0]) : undefined;
    if (onRoomy) return onRoomy;
    if (!roomy) await drainShards(input.organizationId, parts);
  }
  throw new Error(`The wallet of organization ${input.organizationId} kept changing while a hold was taken.`);
}

/**
 * The writes that settle a reservation (charge the actual cost, capped at
 * what was held, and free the rest; the charge's ledger entry and usage), to
 * commit together with the message's or call's own record. No items when it was already settled or released.
 */
export async function settlement(
  input: SettleInput & {
    relatedEntityId: string;
    createdBy?: string;
    /** The reservation as the caller read it just now (`reservationRead`, in a batch with its own reads). */
    read?: { reservation: StoredReservation | undefined };
  },
): Promise<{ items: TransactItem[]; outcome: BillingOutcome }> {
  const reservation = input.read
    ? input.read.reservation
    : await storedReservation(input.organizationId, input.reservationId);
  if (!reservation) return { items: [], outcome: { billingStatus: "NotBillable", billableAmount: "0.0000" } };
  if (reservation.state !== "Reserved") return { items: [], outcome: outcomeOf(reservation) };
  const charged = Math.max(0, Math.min(toUnits(input.amount), reservation.amountUnits));
  const now = nowIso();
  const entry: LedgerEntry | undefined =
    charged > 0
      ? ledgerEntry({
          entryType: "Charge",
          amount: fromUnits(-charged),
          currency: input.currency ?? (await storedPrices(input.organizationId)).currency,
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
    // A hold on its owner's item is closed by the owner's own change.
    ...(reservation.onOwner
      ? []
      : [closeReservation(input.organizationId, input.reservationId, "Settled", charged, now)]),
    walletChange(
      input.organizationId,
      { balance: -charged, reserved: -reservation.amountUnits, available: reservation.amountUnits - charged },
      now,
      reservation.walletShard,
      undefined,
      // A charge on a shard is counted on the shard's own write: no usage item (`chargeWrites`).
      entry && reservation.walletShard !== undefined
        ? shardUsage(input.organizationId, entry, reservation.walletShard)
        : undefined,
    ),
    ...(entry ? chargeWrites(input.organizationId, entry, reservation.walletShard) : []),
  ];
  return {
    items,
    outcome: { billingStatus: charged > 0 ? "Charged" : "Released", billableAmount: fromUnits(charged) },
  };
}

/**
 * The writes that give a reservation back (the message or call never reached the provider, or failed). `read`: the
 * hold as the caller read it just now (as `settlement`'s).
 */
export async function releaseItems(
  organizationId: string,
  reservationId: string,
  read?: { reservation: StoredReservation | undefined },
): Promise<{ items: TransactItem[]; outcome: BillingOutcome }> {
  const reservation = read ? read.reservation : await storedReservation(organizationId, reservationId);
  if (!reservation) return { items: [], outcome: { billingStatus: "NotBillable", billableAmount: "0.0000" } };
  if (reservation.state !== "Reserved") return { items: [], outcome: outcomeOf(reservation) };
  const now = nowIso();
  return {
    items: [
      ...(reservation.onOwner ? [] : [closeReservation(organizationId, reservationId, "Released", 0, now)]),
      walletChange(
        organizationId,
        { balance: 0, reserved: -reservation.amountUnits, available: reservation.amountUnits },
        now,
        reservation.walletShard,
      ),
    ],
    outcome: { billingStatus: "Released", billableAmount: "0.0000" },
  };
}

/**
 * The writes of a charge that belongs to no reservation (a phone number's
 * monthly fee), to commit with the caller's own items (its once-only marker):
 * the wallet change (first item), the ledger entry and its usage. `mustCover` (a
 * purchase): the wallet item's condition fails unless the wallet is not
 * suspended and the available balance stays at or above the floor (answer
 * `Billing.refusal`). Otherwise (a fee already owed) it is taken in full, even
 * below the floor: the negative balance is the debt, and the wallet is Empty
 * until a top-up covers it.
 */
export async function chargeItems(input: ChargeInput): Promise<{ items: TransactItem[]; entry: LedgerEntry }> {
  const units = toUnits(input.amount);
  const parts = await storedWalletParts(input.organizationId);
  // The charge is taken from the wallet item: the shards' money goes back to it first when it alone cannot cover it.
  if (parts.main.availableUnits < units + floorUnits() && shardsHoldMoney(parts))
    await drainShards(input.organizationId, parts);
  const wallet = parts.main;
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
  const change = walletChange(
    input.organizationId,
    { balance: -units, reserved: 0, available: -units },
    entry.createdAt,
    undefined,
    input.mustCover ? { units, refuseSuspended: true } : undefined,
  );
  return { items: [change, ...chargeWrites(input.organizationId, entry)], entry };
}

/** The 402 for a charge of `amount` the wallet refused (suspended, or not enough available). */
export async function refusal(organizationId: string, amount: string): Promise<WalletRefusedError> {
  return walletRefusal(organizationId, await storedWallet(organizationId), toUnits(amount));
}

/** Settles on its own (no message or call billing fields to write with it); idempotent. */
export async function settle(
  input: SettleInput & { relatedEntityId: string; items?: TransactItem[] },
): Promise<BillingOutcome> {
  return commitWithRetry(() => settlement(input), input.items);
}

/** Releases on its own; idempotent. */
export async function release(
  organizationId: string,
  reservationId: string,
  extra?: TransactItem[],
): Promise<BillingOutcome> {
  return commitWithRetry(() => releaseItems(organizationId, reservationId), extra);
}

/** Commits billing items together with the caller's (retrying conflicts); a charge on a shard may first move its usage to its day. */
export { commitCharges as commit };
