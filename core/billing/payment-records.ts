/** Top-ups and the payments that credit them: the records that make each card payment credit the wallet exactly once. */
import * as v from "valibot";
import { reconcileSuspension } from "#core/billing/payment-reversals";
import { type PaymentEventOutcome } from "#core/billing/payments";
import { Billing, fromUnits, toUnits } from "#core/billing/index";
import { fromMinorUnits, stripe, type Stripe } from "#core/billing/stripe";
import { table, updateIf } from "#core/db/items";
import { entities, keys } from "#core/db/keys";
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
}

export function paidPayment(metadata: Stripe.Metadata | null, paymentId: string, amountMinor: number | null, currency: string | null): PaidPayment | undefined {
  const { organizationId, topUpId } = metadata ?? {};
  if (!organizationId || !topUpId || amountMinor === null || !currency) return undefined;
  return { organizationId, topUpId, paymentId, amountMinor, currency: currency.toUpperCase() };
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

/** Credits a paid top-up once: the payment's item and the top-up's success commit with the ledger entry. */
export async function creditPayment(payment: PaidPayment | undefined): Promise<PaymentEventOutcome> {
  if (!payment) return "ignored";
  const { organizationId, topUpId, paymentId } = payment;
  const wallet = await Billing.wallet(organizationId);
  if (payment.currency !== wallet.currency) {
    logger.error("A payment in another currency than the wallet's was not credited; refund it at the provider", { organizationId, paymentId, currency: payment.currency });
    return "ignored";
  }
  const units = toUnits(fromMinorUnits(payment.amountMinor));
  const now = nowIso();
  const credited = await Billing.recordPayment(organizationId, {
    entryType: "TopUp",
    amount: fromUnits(units),
    reason: "TopUp",
    description: "Card payment",
    reference: paymentId,
    items: [
      {
        Put: {
          Item: { ...keys.payment(organizationId, paymentId), entity: entities.payment, paymentId, topUpId, amountUnits: units, refundedUnits: 0, createdAt: now },
          ConditionExpression: "attribute_not_exists(pk)",
        },
      },
      {
        Update: {
          Key: keys.topUp(organizationId, topUpId),
          UpdateExpression: "SET #status = :succeeded, paymentId = :paymentId, completedAt = :now REMOVE checkoutUrl",
          // Only a top-up this API started in this organization is credited.
          ConditionExpression: "attribute_exists(pk)",
          ExpressionAttributeNames: { "#status": "status" },
          ExpressionAttributeValues: { ":succeeded": "Succeeded", ":paymentId": paymentId, ":now": now },
        },
      },
    ],
  });
  await reconcileSuspension(organizationId, { afterRefund: false });
  return credited ? "credited" : "ignored";
}

/** `GET /billing/wallet/top-ups/{topUpId}`: a read of the stored top-up, apart from payments.ts so that it bundles no Stripe. */
export async function readTopUp(organizationId: string, topUpId: string): Promise<TopUp> {
  const stored = await storedTopUp(organizationId, topUpId);
  if (!stored) throw new NotFoundError("Top-up", topUpId);
  return toTopUp(topUpId, stored);
}

export async function storedTopUp(organizationId: string, topUpId: string): Promise<StoredTopUp | undefined> {
  const { Item } = await table.get({ Key: keys.topUp(organizationId, topUpId), ConsistentRead: true });
  return Item as StoredTopUp | undefined;
}

/** Sets fields of a stored top-up: only while it is in `from` when given (undefined when it was not), else while it exists. */
export async function setTopUp(organizationId: string, topUpId: string, fields: Partial<StoredTopUp>, from?: TopUpStatus): Promise<Record<string, unknown> | undefined> {
  const entries = Object.entries(fields).filter(([, value]) => value !== undefined);
  const key = keys.topUp(organizationId, topUpId);
  const update = {
    expression: `SET ${entries.map((_, index) => `#f${index} = :v${index}`).join(", ")}`,
    names: Object.fromEntries(entries.map(([name], index) => [`#f${index}`, name])),
    values: Object.fromEntries(entries.map(([, value], index) => [`:v${index}`, value])),
  };
  if (from) return updateIf(key, update, [from]);
  const { Attributes } = await table.update({
    Key: key,
    UpdateExpression: update.expression,
    ConditionExpression: "attribute_exists(pk)",
    ExpressionAttributeNames: update.names,
    ExpressionAttributeValues: update.values,
    ReturnValues: "ALL_NEW",
  });
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
