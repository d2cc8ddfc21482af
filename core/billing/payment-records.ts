/** Top-ups and the payments that credit them: the records that make each card payment credit the wallet exactly once. */
import * as v from "valibot";
import { reconcileSuspension } from "#core/billing/payment-reversals";
import { type PaymentEventOutcome } from "#core/billing/payments";
import * as Billing from "#core/billing/index";
import { fromUnits, toUnits } from "#core/billing/index";
import { fromMinorUnits, stripe, type Stripe } from "#core/billing/stripe";
import { PaymentEntity, PaymentReviewEntity, TopUpEntity } from "#core/db/entities/billing";
import { where } from "#core/db/expression";
import { withoutKeys } from "#core/db/indexes";
import { conditionally, table } from "#core/db/items";
import { queryAll } from "#core/db/query";
import { NotFoundError } from "#core/errors";
import { logger } from "#core/observability/index";
import { nowIso, timestamp } from "#core/shared/ids";

/**
 * Money enters the wallet only through a payment the payment provider (Stripe)
 * confirms: `POST /billing/wallet/top-ups` creates a Checkout Session and a
 * pending top-up; the wallet is credited only by the signed
 * `checkout.session.completed` / `payment_intent.succeeded` event, once per
 * payment (the payment's own item is put in the credit's transaction).
 * Refunds and disputes the provider reports are negative ledger entries; a
 * dispute, or a refund that leaves the wallet short, suspends it.
 */

export const topUpStatuses = ["Pending", "Succeeded", "Refunded", "Expired", "Failed"] as const;
export type TopUpStatus = (typeof topUpStatuses)[number];

export const TopUpSchema = v.object({
  id: v.string(),
  /** Asked for; what is credited is what the payment provider reports as paid (the same amount). */
  amount: v.string(),
  currency: v.string(),
  status: v.picklist(topUpStatuses),
  /** The payment page to send the payer to (Stripe Checkout); null once the top-up is no longer payable. */
  checkoutUrl: v.nullable(v.string()),
  /** The Checkout Session at the payment provider. */
  checkoutSessionId: v.nullable(v.string()),
  /** The provider's payment (PaymentIntent) once paid: the reference on the ledger entry. */
  paymentId: v.nullable(v.string()),
  refundedAmount: v.string(),
  createdBy: v.string(),
  createdAt: timestamp,
  completedAt: v.nullable(timestamp),
});
export type TopUp = v.InferOutput<typeof TopUpSchema>;

export interface StoredTopUp {
  amountUnits: number;
  currency: string;
  status: TopUpStatus;
  checkoutUrl?: string;
  checkoutSessionId?: string;
  paymentId?: string;
  refundedUnits?: number;
  createdBy: string;
  createdAt: string;
  completedAt?: string;
}

/** What a payment event tells about a payment we asked for. */
export interface PaidPayment {
  organizationId: string;
  topUpId: string;
  paymentId: string;
  amountMinor: number;
  currency: string;
  /** The Checkout Session paid, when the event names it (session events; a PaymentIntent does not). */
  checkoutSessionId?: string;
}

export function paidPayment(
  metadata: Stripe.Metadata | null,
  paymentId: string,
  amountMinor: number | null,
  currency: string | null,
  checkoutSessionId?: string,
): PaidPayment | undefined {
  const { organizationId, topUpId } = metadata ?? {};
  if (!organizationId || !topUpId || amountMinor === null || !currency) return undefined;
  return {
    organizationId,
    topUpId,
    paymentId,
    amountMinor,
    currency: currency.toUpperCase(),
    ...(checkoutSessionId ? { checkoutSessionId } : {}),
  };
}

/** The payment a charge or dispute belongs to, read back from the provider (charges do not carry the top-up's metadata). */
export async function paymentOf(intent: string | Stripe.PaymentIntent | null): Promise<PaidPayment | undefined> {
  if (!intent) return undefined;
  const read = typeof intent === "string" ? await (await stripe()).paymentIntents.retrieve(intent) : intent;
  if (read.status !== "succeeded") return undefined;
  const payment = paidPayment(read.metadata, read.id, read.amount_received, read.currency);
  // A refund or dispute can arrive before the payment's own event: the payment is credited first.
  if (payment) await creditPayment(payment);
  return payment;
}

/**
 * Credits a paid top-up once, and only with what that top-up asked for: the payment must be of the top-up's Checkout
 * Session (when the event names one), the top-up still Pending, and the amount and currency the top-up's. A payment
 * that names a top-up of the organization but matches it in no other way is recorded for review (the operator's
 * `payments-to-review`), never credited. The payment's item and the top-up's success commit with the ledger entry,
 * conditional on the same facts, so a concurrent event cannot credit a changed top-up.
 */
export async function creditPayment(payment: PaidPayment | undefined): Promise<PaymentEventOutcome> {
  if (!payment) return "ignored";
  const { organizationId, topUpId, paymentId } = payment;
  const [topUp, alreadyCredited] = await Promise.all([
    storedTopUp(organizationId, topUpId),
    paymentRecorded(organizationId, paymentId),
  ]);
  // Not a top-up of this organization (another's, or none): not ours to credit.
  if (!topUp) return "ignored";
  // The same payment again (its session and its intent both report it; redeliveries): credited once already.
  if (alreadyCredited) return "ignored";
  const units = toUnits(fromMinorUnits(payment.amountMinor));
  const mismatches = paymentMismatches(topUp, payment, units);
  if (mismatches.length > 0) return holdForReview(payment, topUp, mismatches);
  const now = nowIso();
  const credited = await Billing.recordPayment(organizationId, {
    entryType: "TopUp",
    amount: fromUnits(units),
    reason: "TopUp",
    description: "Card payment",
    reference: paymentId,
    items: [
      {
        Put: PaymentEntity.putAt(
          { organizationId, paymentId },
          { paymentId, topUpId, amountUnits: units, refundedUnits: 0, createdAt: now },
          { condition: where.new() },
        ),
      },
      {
        Update: TopUpEntity.update(
          { organizationId, topUpId },
          { status: "Succeeded", paymentId, completedAt: now },
          {
            remove: ["checkoutUrl"],
            // What was checked above still holds when the credit commits.
            condition: where.all(
              where.equals("status", "Pending"),
              where.equals("amountUnits", units),
              where.equals("currency", topUp.currency),
            ),
          },
        ),
      },
    ],
  });
  await reconcileSuspension(organizationId, { afterRefund: false });
  return credited ? "credited" : "ignored";
}

/** Why a payment cannot credit the top-up it names (empty when it can). */
function paymentMismatches(topUp: StoredTopUp, payment: PaidPayment, units: number): string[] {
  return [
    ...(payment.checkoutSessionId && payment.checkoutSessionId !== topUp.checkoutSessionId
      ? [`paid Checkout Session ${payment.checkoutSessionId}, not the top-up's ${topUp.checkoutSessionId ?? "(none)"}`]
      : []),
    ...(topUp.status !== "Pending" ? [`the top-up is ${topUp.status}, not Pending`] : []),
    ...(units !== topUp.amountUnits
      ? [`paid ${fromUnits(units)}, the top-up asked for ${fromUnits(topUp.amountUnits)}`]
      : []),
    ...(payment.currency !== topUp.currency ? [`paid in ${payment.currency}, the top-up is in ${topUp.currency}`] : []),
  ];
}

async function paymentRecorded(organizationId: string, paymentId: string): Promise<boolean> {
  return Boolean(await PaymentEntity.get({ organizationId, paymentId }, { consistent: true, attributes: ["pk"] }));
}

/** A payment to review: stored once per payment (redeliveries add nothing), listed to the operator, logged as an error. */
async function holdForReview(
  payment: PaidPayment,
  topUp: StoredTopUp,
  mismatches: string[],
): Promise<PaymentEventOutcome> {
  const { organizationId, topUpId, paymentId } = payment;
  const receivedAt = nowIso();
  const review: PaymentToReview = {
    organizationId,
    topUpId,
    paymentId,
    checkoutSessionId: payment.checkoutSessionId ?? null,
    amount: fromMinorUnits(payment.amountMinor),
    currency: payment.currency,
    topUpAmount: fromUnits(topUp.amountUnits),
    topUpCurrency: topUp.currency,
    topUpStatus: topUp.status,
    mismatches,
    receivedAt,
  };
  const recorded = await conditionally(table.put(PaymentReviewEntity.create({ ...review })));
  if (recorded)
    logger.error(
      "A payment event did not match its top-up and was not credited; review it (admin payments-to-review)",
      { ...review },
    );
  return "recorded";
}

/** A payment that was not credited because it did not match the top-up it names. */
export interface PaymentToReview {
  organizationId: string;
  topUpId: string;
  paymentId: string;
  checkoutSessionId: string | null;
  amount: string;
  currency: string;
  topUpAmount: string;
  topUpCurrency: string;
  topUpStatus: TopUpStatus;
  mismatches: string[];
  receivedAt: string;
}

/** Every payment held for review, oldest first (operator CLI `payments-to-review`). */
export async function paymentsToReview(): Promise<PaymentToReview[]> {
  const items = await queryAll(PaymentReviewEntity.query("toReview", {}));
  return items.map((item) => {
    const { entity: _entity, ...review } = withoutKeys(item);
    return review as unknown as PaymentToReview;
  });
}

/** `GET /billing/wallet/top-ups/{topUpId}`: a read of the stored top-up, apart from payments.ts so that it bundles no Stripe. */
export async function readTopUp(organizationId: string, topUpId: string): Promise<TopUp> {
  const stored = await storedTopUp(organizationId, topUpId);
  if (!stored) throw new NotFoundError("Top-up", topUpId);
  return toTopUp(topUpId, stored);
}

export async function storedTopUp(organizationId: string, topUpId: string): Promise<StoredTopUp | undefined> {
  return (await TopUpEntity.get({ organizationId, topUpId }, { consistent: true })) as StoredTopUp | undefined;
}

/** Sets fields of a stored top-up: only while it is in `from` when given (undefined when it was not), else while it exists. */
export async function setTopUp(
  organizationId: string,
  topUpId: string,
  fields: Partial<StoredTopUp>,
  from?: TopUpStatus,
): Promise<Record<string, unknown> | undefined> {
  const changes = Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined));
  const update = {
    ...TopUpEntity.update({ organizationId, topUpId }, changes, {
      condition: from ? where.equals("status", from) : where.stored(),
    }),
    ReturnValues: "ALL_NEW" as const,
  };
  if (from) return (await conditionally(table.update(update)))?.Attributes;
  const { Attributes } = await table.update(update);
  return Attributes;
}

export function toTopUp(id: string, stored: StoredTopUp): TopUp {
  return {
    id,
    amount: fromUnits(stored.amountUnits),
    currency: stored.currency,
    status: stored.status,
    checkoutUrl: stored.status === "Pending" ? (stored.checkoutUrl ?? null) : null,
    checkoutSessionId: stored.checkoutSessionId ?? null,
    paymentId: stored.paymentId ?? null,
    refundedAmount: fromUnits(stored.refundedUnits ?? 0),
    createdBy: stored.createdBy,
    createdAt: stored.createdAt,
    completedAt: stored.completedAt ?? null,
  };
}
