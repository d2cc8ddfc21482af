import { copyKey, org, ownPartition, ordered, decimalSortText, type Key } from "#core/db/keys/shared";

/** Keys of the items core/billing owns (docs/data-model.md). */
export const billingKeys = {
  /**
   * gsi3 (sparse): open wallet holds (reservations) by the time the hold sweeper
   * (core/maintenance/hold-sweeper.ts) looks at their owner. Not tenant data: the
   * sweeper's operator index across organizations, sharded by reservation id; on
   * the reservation item only, removed in the write that settles or releases it.
   */
  dueHold: (shard: number, dueAt: string, organizationId: string, reservationId: string) => ({
    gsi3pk: `DUEHOLDS#${shard}`,
    gsi3sk: `${dueAt}#${organizationId}#${reservationId}`,
  }),

  /** Billing (prepaid wallet): the wallet, its price list, ledger entries (newest first by ULID) and open reservations. */
  wallet: (organizationId: string): Key => ({ pk: org(organizationId), sk: "WALLET" }),
  /**
   * One of a busy wallet's sub-balances (issue 27): money moved from the wallet item so that holds and their
   * settlement spread over several items, each in a partition of its own (a hold and its settlement write a shard,
   * 4.3 write units a lead the organization's partition could not carry); the wallet item and every shard are read
   * together by their keys (one BatchGetItem).
   */
  walletShard: (organizationId: string, shard: number): Key => ownPartition(organizationId, `WALLET#SHARD#${shard}`),
  /** One of the price list's copies (`copyKey`: every send's hold and settlement read one, issue 27). */
  priceList: (organizationId: string, copy: number): Key => copyKey(organizationId, "SETTINGS#PRICES", copy),
  /**
   * A ledger entry, in a partition of its own (issue 27: every charge writes one, 2 write units a lead the
   * organization's partition could not carry); listed by creation and by amount from write-sharded indexes
   * (declared with the LedgerEntry entity).
   */
  ledgerEntry: (organizationId: string, entryId: string): Key => ownPartition(organizationId, `LEDGER#${entryId}`),
  /** A wallet top-up asked for through the payment provider (pending until its signed payment event arrives). */
  topUp: (organizationId: string, topUpId: string): Key => ({ pk: org(organizationId), sk: `TOPUP#${topUpId}` }),
  /** One per payment received (keyed by the provider's payment id), put in the credit's transaction so it is credited once; holds what was refunded. */
  payment: (organizationId: string, paymentId: string): Key => ({
    pk: org(organizationId),
    sk: `PAYMENT#${paymentId}`,
  }),
  /**
   * One per payment event that named a top-up of the organization but did not match it (session, status, amount or
   * currency): not credited, kept for the operator to review. Keyed by the provider's payment id, so redeliveries record it once.
   */
  paymentReview: (organizationId: string, paymentId: string): Key => ({
    pk: org(organizationId),
    sk: `PAYMENTREVIEW#${paymentId}`,
  }),
  /** gsi1: the operator's list of payments to review across organizations (admin CLI `payments-to-review`). Not tenant data. */
  paymentReviewIndex: (receivedAt: string, organizationId: string, paymentId: string) => ({
    gsi1pk: "PAYMENTREVIEWS",
    gsi1sk: `${receivedAt}#${organizationId}#${paymentId}`,
  }),
  /** One per payment dispute (chargeback), put in its debit's transaction so it is taken once; its state says whether it was closed. */
  paymentDispute: (organizationId: string, disputeId: string): Key => ({
    pk: org(organizationId),
    sk: `DISPUTE#${disputeId}`,
  }),
  /** gsi5: the ledger by amount (decimalSortText; entries never change), in the shard of the entry's id. */
  ledgerByAmount: (organizationId: string, amount: string, entryId: string, shard: number) => ({
    gsi5pk: `${org(organizationId)}#LEDGER#AMOUNT#${shard}`,
    gsi5sk: ordered(decimalSortText(amount), entryId),
  }),
  /**
   * One per message or call whose estimated cost is held; keyed by that message or call id, in a partition of its
   * own (issue 27: written when held and again when settled or released, per message; read by key only).
   */
  reservation: (organizationId: string, reservationId: string): Key =>
    ownPartition(organizationId, `RESERVATION#${reservationId}`),
  /** One per phone number and billing month (`2026-03`) whose fee was charged, put in the charge's transaction so it happens once. */
  phoneNumberFee: (organizationId: string, phoneNumberId: string, month: string): Key => ({
    pk: org(organizationId),
    sk: `NUMBERFEE#${phoneNumberId}#${month}`,
  }),
  /**
   * One per UTC day and wallet item (`W`) or shard (`0`-`7`) whose balance a charge changed: the day's charges by
   * reason (issue 29), added in the charge's own transaction. Each wallet part's days in a partition of that part's
   * (issue 27: every charge adds to one, at the rate its wallet part takes charges), sorted by day, so a period is one
   * key range of each part.
   */
  usageDay: (organizationId: string, day: string, walletPart: string): Key => ({
    pk: `${org(organizationId)}#USAGE#${walletPart}`,
    sk: `USAGE#${day}#${walletPart}`,
  }),
  /**
   * The counters a wallet shard held for `day` (core/billing/usage.ts `rollOver`), moved off it the `rollover`-th
   * time: in that part's partition, inside its day's range, one item per move (never added to, so a reader can tell
   * a move made after it read the shard).
   */
  usageRolledOver: (organizationId: string, day: string, shard: number, rollover: number): Key => ({
    pk: `${org(organizationId)}#USAGE#${shard}`,
    sk: `USAGE#${day}#${shard}#${rollover}`,
  }),
  /** Sort-key bounds (inclusive, for `BETWEEN`) of the usage days `from` through `to` (`2026-11-01`). */
  usageDays: (from: string, to: string) => ({
    lower: billingKeys.usageDay("", from, "").sk,
    upper: billingKeys.usageDay("", to, "~").sk,
  }),
};
