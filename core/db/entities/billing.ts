import { dueWorkShardOf } from "#core/db/due";
import { defineEntity } from "#core/db/entity";
import { billingKeys } from "#core/db/keys/billing";
import { org } from "#core/db/keys/shared";

/**
 * What identifies a usage day: the organization, the UTC day and the wallet part (`W` or a shard's number) charged;
 * `rollover` for the counters moved off a shard (core/billing/usage.ts `rollOver`), one item per move.
 */
type UsageDayIdentity = { organizationId: string; day: string; walletPart: string; rollover?: number };
type StoredUsageDay = UsageDayIdentity & Record<string, unknown>;

/**
 * The UsageDay entity (docs/data-model.md): one day's charges on one wallet part, as counters per ledger reason, in
 * a partition of that wallet part's, in day order, so a period is one key range of each part (one item a day each).
 */
export const UsageDayEntity = defineEntity({
  name: "UsageDay",
  attributes: [],
  key: ({ organizationId, day, walletPart, rollover }: UsageDayIdentity) =>
    rollover === undefined
      ? billingKeys.usageDay(organizationId, day, walletPart)
      : billingKeys.usageRolledOver(organizationId, day, Number(walletPart), rollover),
  identity: ({ organizationId, day, walletPart, rollover }: StoredUsageDay) => ({
    organizationId,
    day,
    walletPart,
    ...(typeof rollover === "number" ? { rollover } : {}),
  }),
  collection: {
    name: "byDay",
    pk: (usage: StoredUsageDay) => billingKeys.usageDay(usage.organizationId, "", usage.walletPart).pk,
    sk: (usage: StoredUsageDay) => billingKeys.usageDay(usage.organizationId, usage.day, usage.walletPart).sk,
  },
  indexes: {},
});

/**
 * The Wallet entity (docs/data-model.md): the organization's prepaid money and its settings (limits, suspension),
 * changed only with a ledger entry (or a move to or from a shard), never below the floor.
 */
export const WalletEntity = defineEntity({
  name: "Wallet",
  attributes: [],
  key: ({ organizationId }: { organizationId: string }) => billingKeys.wallet(organizationId),
  identity: ({ organizationId }: { organizationId: string }) => ({ organizationId }),
  indexes: {},
});

type WalletShardIdentity = { organizationId: string; shard: number };

/** A WalletShard (issue 27): a sub-balance holds and their settlement are taken from, in a partition of its own. */
export const WalletShardEntity = defineEntity({
  name: "WalletShard",
  attributes: [],
  key: ({ organizationId, shard }: WalletShardIdentity) => billingKeys.walletShard(organizationId, shard),
  identity: ({ organizationId, shard }: WalletShardIdentity) => ({ organizationId, shard }),
  indexes: {},
});

type PriceListIdentity = { organizationId: string; copy: number };
type StoredPriceList = PriceListIdentity & Record<string, unknown>;

/**
 * The PriceList entity: the operator's overrides of the default prices, one per organization, stored as identical
 * copies written in one transaction (core/db/copies.ts); each copy holds its identity (its organization and `copy`),
 * so a key derived from a stored copy is that copy's.
 */
export const PriceListEntity = defineEntity({
  name: "PriceList",
  attributes: [],
  key: ({ organizationId, copy }: PriceListIdentity) => billingKeys.priceList(organizationId, copy),
  identity: ({ organizationId, copy }: StoredPriceList) => ({ organizationId, copy }),
  indexes: {},
});

type LedgerIdentity = { organizationId: string; id: string };
type StoredLedgerEntry = LedgerIdentity & { amount: string } & Record<string, unknown>;

/** Shards of the ledger's listings: an entry a charge, up to two a lead at the goal (issue 27). */
export const ledgerListShards = 8;
const byEntry = { count: ledgerListShards, by: (entry: StoredLedgerEntry) => entry.id };

/**
 * The LedgerEntry entity: one per movement of money, never changed, each in a partition of its own; newest first by
 * its ULID from a write-sharded creation index, and by amount from the ordered-list index (`decimalSortText`),
 * write-sharded too; a listing reads the shards in parallel and merges them.
 */
export const LedgerEntryEntity = defineEntity({
  name: "LedgerEntry",
  attributes: [],
  key: ({ organizationId, id }: LedgerIdentity) => billingKeys.ledgerEntry(organizationId, id),
  identity: ({ organizationId, id }: StoredLedgerEntry) => ({ organizationId, id }),
  indexes: {
    byCreation: {
      index: "ledgerByCreation",
      pk: (entry: StoredLedgerEntry, shard: number) => `${org(entry.organizationId)}#LEDGER#${shard}`,
      sk: (entry: StoredLedgerEntry) => `LEDGER#${entry.id ?? ""}`,
      composites: [],
      shards: byEntry,
    },
    byAmount: {
      index: "sortedByPrice",
      pk: (entry: StoredLedgerEntry, shard: number) =>
        billingKeys.ledgerByAmount(entry.organizationId, entry.amount, entry.id, shard).gsi5pk,
      sk: (entry: StoredLedgerEntry) =>
        billingKeys.ledgerByAmount(entry.organizationId, entry.amount, entry.id, 0).gsi5sk,
      composites: ["amount"],
      shards: byEntry,
    },
  },
});

type ReservationIdentity = { organizationId: string; reservationId: string };
type StoredReservationRecord = ReservationIdentity & { dueAt?: string; shard?: number } & Record<string, unknown>;

/**
 * The Reservation entity (a hold): one per message or call whose estimated cost is held, in a partition of its own,
 * written when held and once more when settled or released (its `state` leaves `Reserved` once).
 */
export const ReservationEntity = defineEntity({
  name: "Reservation",
  attributes: [],
  key: ({ organizationId, reservationId }: ReservationIdentity) =>
    billingKeys.reservation(organizationId, reservationId),
  identity: ({ organizationId, reservationId }: StoredReservationRecord) => ({ organizationId, reservationId }),
  indexes: {
    /**
     * Open holds by when the hold sweeper (core/maintenance/hold-sweeper.ts) looks at their owner. Not tenant data:
     * the sweeper's operator index across organizations, sharded by reservation id; explicit (the record holds no
     * due time): given by the hold, moved by each look, removed in the write that settles or releases it.
     */
    holdCheck: {
      index: "dueWork",
      pk: (hold: StoredReservationRecord) =>
        billingKeys.dueHold(hold.shard ?? dueWorkShardOf(hold.reservationId), "", "", "").gsi3pk,
      sk: (hold: StoredReservationRecord) =>
        billingKeys.dueHold(0, hold.dueAt ?? "", hold.organizationId, hold.reservationId).gsi3sk,
      composites: [],
      explicit: true,
    },
  },
});

/** The TopUp entity: a wallet top-up asked for through the payment provider, Pending until its payment event. */
export const TopUpEntity = defineEntity({
  name: "TopUp",
  attributes: [],
  key: ({ organizationId, topUpId }: { organizationId: string; topUpId: string }) =>
    billingKeys.topUp(organizationId, topUpId),
  identity: ({ organizationId, topUpId }: { organizationId: string; topUpId: string }) => ({ organizationId, topUpId }),
  indexes: {},
});

type PaymentIdentity = { organizationId: string; paymentId: string };

/** The Payment entity: one per payment credited (put in the credit's transaction, so it is credited once). */
export const PaymentEntity = defineEntity({
  name: "Payment",
  attributes: [],
  key: ({ organizationId, paymentId }: PaymentIdentity) => billingKeys.payment(organizationId, paymentId),
  identity: ({ organizationId, paymentId }: PaymentIdentity) => ({ organizationId, paymentId }),
  indexes: {},
});

type StoredPaymentReview = PaymentIdentity & { receivedAt: string } & Record<string, unknown>;

/** The PaymentReview entity: a payment that named a top-up but did not match it, kept for the operator. */
export const PaymentReviewEntity = defineEntity({
  name: "PaymentReview",
  attributes: [],
  key: ({ organizationId, paymentId }: PaymentIdentity) => billingKeys.paymentReview(organizationId, paymentId),
  identity: ({ organizationId, paymentId }: StoredPaymentReview) => ({ organizationId, paymentId }),
  indexes: {
    /** The operator's list across organizations, oldest first (admin CLI `payments-to-review`). Not tenant data. */
    toReview: {
      index: "paymentsToReview",
      pk: () => billingKeys.paymentReviewIndex("", "", "").gsi1pk,
      sk: (review: StoredPaymentReview) =>
        billingKeys.paymentReviewIndex(review.receivedAt, review.organizationId, review.paymentId).gsi1sk,
      composites: ["receivedAt"],
    },
  },
});

type DisputeIdentity = { organizationId: string; disputeId: string };

/** The PaymentDispute entity: one per chargeback (put in its debit's transaction), Open until won or lost. */
export const PaymentDisputeEntity = defineEntity({
  name: "PaymentDispute",
  attributes: [],
  key: ({ organizationId, disputeId }: DisputeIdentity) => billingKeys.paymentDispute(organizationId, disputeId),
  identity: ({ organizationId, disputeId }: DisputeIdentity) => ({ organizationId, disputeId }),
  collection: {
    name: "byOrganization",
    pk: (dispute: DisputeIdentity) => org(dispute.organizationId),
    sk: (dispute: DisputeIdentity) => billingKeys.paymentDispute("", dispute.disputeId ?? "").sk,
  },
  indexes: {},
});

type NumberFeeIdentity = { organizationId: string; phoneNumberId: string; month: string };

/** The PhoneNumberFee entity: one per number and billing month charged, put in the charge's transaction (once). */
export const PhoneNumberFeeEntity = defineEntity({
  name: "PhoneNumberFee",
  attributes: [],
  key: ({ organizationId, phoneNumberId, month }: NumberFeeIdentity) =>
    billingKeys.phoneNumberFee(organizationId, phoneNumberId, month),
  identity: ({ organizationId, phoneNumberId, month }: NumberFeeIdentity) => ({ organizationId, phoneNumberId, month }),
  indexes: {},
});
