import * as v from "valibot";
import { actorId, type Actor } from "#core/auth/actor";
import { Billing, BALANCE_FLOOR, fromUnits, MAX_TOP_UP, toUnits, type TransactItem } from "#core/billing/index";
import { fromMinorUnits, stripe, toMinorUnits, verifiedEvent, type Stripe } from "#core/billing/stripe";
import { config } from "#core/config";
import { conditionally, table } from "#core/db/items";
import { entities, keys } from "#core/db/keys";
import { NotFoundError, PaymentProviderUnavailableError, ValidationError } from "#core/errors";
import { logger } from "#core/observability/index";
import { newId, nowIso, timestamp } from "#core/shared/ids";
import { describedCheck, statedShape } from "#core/shared/validation";
import * as Money from "#core/shared/money";

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

/** Smallest top-up: below it the card fees outweigh the credit. */
export const MIN_TOP_UP = "1.00";

const CARD_AMOUNT = /^(?:0|[1-9]\d*)(?:\.\d{1,2})?$/;

const returnUrl = v.pipe(v.string(), v.maxLength(2048), v.url("Must be an absolute URL."), v.regex(/^https?:\/\//i, "Must be an http(s) URL."));

/** Body of `POST /billing/wallet/top-ups`. */
export const StartTopUpSchema = v.strictObject({
  /** What to pay and credit, in the wallet's currency: a card payment, so at most 2 decimals. */
  amount: v.pipe(
    v.union(
      [
        v.pipe(v.string(), statedShape({ pattern: "^[1-9]\\d{0,4}(?:\\.\\d{1,2})?$", description: `From ${MIN_TOP_UP} to ${Money.toScale(MAX_TOP_UP, 2)}, at most 2 decimals.` })),
        v.pipe(v.number(), describedCheck<number>(() => true, "", { minimum: Number(MIN_TOP_UP), maximum: Number(MAX_TOP_UP), multipleOf: 0.01 })),
      ],
      'Must be a decimal amount such as "25.00".',
    ),
    v.transform((value) => String(value)),
    v.rawCheck(({ dataset, addIssue }) => {
      if (!dataset.typed) return;
      if (!CARD_AMOUNT.test(dataset.value)) addIssue({ message: 'Must be a positive amount with at most 2 decimals, such as "25.00".' });
      else if (Money.compare(dataset.value, MIN_TOP_UP) < 0) addIssue({ message: `Must be at least ${MIN_TOP_UP}.` });
      else if (Money.compare(dataset.value, MAX_TOP_UP) > 0) addIssue({ message: `Must be at most ${Money.toScale(MAX_TOP_UP, 2)}.` });
    }),
  ),
  /** Where the payment page sends the payer after paying; default the dashboard. */
  successUrl: v.optional(returnUrl),
  /** Where the payment page sends the payer who gives up; default the dashboard. */
  cancelUrl: v.optional(returnUrl),
});
export type StartTopUp = v.InferOutput<typeof StartTopUpSchema>;

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

export type PaymentEventOutcome = "credited" | "recorded" | "ignored";

/** Why a wallet was suspended by a payment event; only these suspensions lift by themselves. */
const suspendedForDispute = "A payment was disputed";
const suspendedForRefund = "A refund left the available balance below zero";

interface StoredTopUp {
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
interface PaidPayment {
  organizationId: string;
  topUpId: string;
  paymentId: string;
  amountMinor: number;
  currency: string;
}

export const Payments = {
  /**
   * `POST /billing/wallet/top-ups`: a pending top-up and its Checkout Session.
   * The top-up is stored before the session is created, so a paid session
   * always finds it; the provider call carries the top-up id as its
   * Idempotency-Key, so the library's retries create one session.
   */
  async startTopUp(actor: Actor, input: StartTopUp): Promise<TopUp> {
    const organizationId = actor.organizationId;
    const client = await stripe();
    const { currency } = await Billing.wallet(organizationId);
    const id = newId();
    const stored: StoredTopUp = { amountUnits: toUnits(input.amount), currency, status: "Pending", createdBy: actorId(actor), createdAt: nowIso() };
    await table.put({ Item: { ...keys.topUp(organizationId, id), entity: entities.topUp, ...stored }, ConditionExpression: "attribute_not_exists(pk)" });
    const back = `${config.publicBaseUrl.replace(/\/$/, "")}/app/?topUp=${id}`;
    const metadata = { organizationId, topUpId: id };
    let session: Stripe.Checkout.Session;
    try {
      session = await client.checkout.sessions.create(
        {
          mode: "payment",
          line_items: [{ quantity: 1, price_data: { currency: currency.toLowerCase(), unit_amount: toMinorUnits(input.amount), product_data: { name: "Wallet top-up" } } }],
          client_reference_id: organizationId,
          metadata,
          payment_intent_data: { metadata },
          success_url: input.successUrl ?? back,
          cancel_url: input.cancelUrl ?? back,
        },
        { idempotencyKey: `top-up-${id}` },
      );
    } catch (error) {
      logger.warn("Stripe refused or could not be reached creating a Checkout Session", { error, topUpId: id });
      await setTopUp(organizationId, id, { status: "Failed", completedAt: nowIso() });
      throw new PaymentProviderUnavailableError("The payment provider could not start the payment; nothing was charged. Retry with a new Idempotency-Key.");
    }
    const payable = { checkoutSessionId: session.id, checkoutUrl: session.url ?? undefined };
    await setTopUp(organizationId, id, payable);
    return toTopUp(id, { ...stored, ...payable });
  },

  /** `GET /billing/wallet/top-ups/{topUpId}`. */
  async topUp(actor: Actor, topUpId: string): Promise<TopUp> {
    const stored = await storedTopUp(actor.organizationId, topUpId);
    if (!stored) throw new NotFoundError("Top-up", topUpId);
    return toTopUp(topUpId, stored);
  },

  /**
   * `POST /webhooks/payments/stripe`: applies one signed Stripe event. Every
   * event may come more than once and in any order; each changes the wallet at
   * most once. Events about payments this API did not start are ignored.
   */
  async receiveStripeEvent(payload: string, signature: string | undefined): Promise<PaymentEventOutcome> {
    const event = await verifiedEvent(payload, signature);
    if (!event) throw new ValidationError("The Stripe-Signature header does not verify against this endpoint's signing secret.", []);
    switch (event.type) {
      case "checkout.session.completed":
      case "checkout.session.async_payment_succeeded": {
        const session = event.data.object;
        // A delayed method (bank debit) completes the session unpaid; its async_payment_succeeded follows.
        if (session.payment_status !== "paid") return "ignored";
        const paymentId = typeof session.payment_intent === "string" ? session.payment_intent : (session.payment_intent?.id ?? session.id);
        return creditPayment(paidPayment(session.metadata, paymentId, session.amount_total, session.currency));
      }
      case "payment_intent.succeeded": {
        const intent = event.data.object;
        return creditPayment(paidPayment(intent.metadata, intent.id, intent.amount_received, intent.currency));
      }
      case "checkout.session.expired": {
        const { organizationId, topUpId } = event.data.object.metadata ?? {};
        if (!organizationId || !topUpId) return "ignored";
        const expired = await conditionally(setTopUp(organizationId, topUpId, { status: "Expired", completedAt: nowIso() }, "Pending"));
        return expired ? "recorded" : "ignored";
      }
      case "charge.refunded": {
        const charge = event.data.object;
        const payment = await paymentOf(charge.payment_intent);
        if (!payment) return "ignored";
        return refund(payment, charge.amount_refunded, charge.id);
      }
      case "charge.dispute.created":
      case "charge.dispute.closed": {
        const dispute = event.data.object;
        const payment = await paymentOf(dispute.payment_intent);
        if (!payment) return "ignored";
        return applyDispute(payment, dispute);
      }
      default:
        return "ignored";
    }
  },
};

function paidPayment(metadata: Stripe.Metadata | null, paymentId: string, amountMinor: number | null, currency: string | null): PaidPayment | undefined {
  const { organizationId, topUpId } = metadata ?? {};
  if (!organizationId || !topUpId || amountMinor === null || !currency) return undefined;
  return { organizationId, topUpId, paymentId, amountMinor, currency: currency.toUpperCase() };
}

/** The payment a charge or dispute belongs to, read back from the provider (charges do not carry the top-up's metadata). */
async function paymentOf(intent: string | Stripe.PaymentIntent | null): Promise<PaidPayment | undefined> {
  if (!intent) return undefined;
  const read = typeof intent === "string" ? await (await stripe()).paymentIntents.retrieve(intent) : intent;
  if (read.status !== "succeeded") return undefined;
  const payment = paidPayment(read.metadata, read.id, read.amount_received, read.currency);
  // A refund or dispute can arrive before the payment's own event: the payment is credited first.
  if (payment) await creditPayment(payment);
  return payment;
}

/** Credits a paid top-up once: the payment's item and the top-up's success commit with the ledger entry. */
async function creditPayment(payment: PaidPayment | undefined): Promise<PaymentEventOutcome> {
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

/** Records what was refunded since the last refund event (Stripe reports the charge's cumulative refunded amount). */
async function refund(payment: PaidPayment, refundedMinor: number, chargeId: string): Promise<PaymentEventOutcome> {
  const { organizationId, paymentId, topUpId } = payment;
  for (let attempt = 0; attempt < 5; attempt++) {
    const { Item } = await table.get({ Key: keys.payment(organizationId, paymentId), ConsistentRead: true });
    if (!Item) return "ignored";
    const previous = Number(Item.refundedUnits ?? 0);
    const total = Math.min(toUnits(fromMinorUnits(refundedMinor)), Number(Item.amountUnits));
    if (total <= previous) return "ignored";
    const recorded = await Billing.recordPayment(organizationId, {
      entryType: "Refund",
      amount: fromUnits(previous - total),
      reason: "Refund",
      description: `Refund of card payment ${paymentId}`,
      reference: chargeId,
      items: [
        {
          Update: {
            Key: keys.payment(organizationId, paymentId),
            UpdateExpression: "SET refundedUnits = :total",
            ConditionExpression: "refundedUnits = :previous",
            ExpressionAttributeValues: { ":total": total, ":previous": previous },
          },
        },
        {
          Update: {
            Key: keys.topUp(organizationId, topUpId),
            UpdateExpression: "SET refundedUnits = :total, #status = :status",
            ConditionExpression: "attribute_exists(pk)",
            ExpressionAttributeNames: { "#status": "status" },
            ExpressionAttributeValues: { ":total": total, ":status": total >= Number(Item.amountUnits) ? "Refunded" : "Succeeded" },
          },
        },
      ],
    });
    if (recorded) {
      await reconcileSuspension(organizationId, { afterRefund: true });
      return "recorded";
    }
  }
  throw new Error(`Refund of ${paymentId} kept conflicting with another refund event`);
}

/**
 * A dispute takes its amount when opened and gives it back when won; its own
 * item's state makes each happen once. A closed dispute whose opening was
 * never seen is opened first.
 */
async function applyDispute(payment: PaidPayment, dispute: Stripe.Dispute): Promise<PaymentEventOutcome> {
  // An inquiry (`warning_…`) withdraws no funds at Stripe, so the wallet keeps them; only a real dispute is taken.
  if (dispute.status.startsWith("warning_")) return "ignored";
  const { organizationId, paymentId } = payment;
  const units = toUnits(fromMinorUnits(dispute.amount));
  const key = keys.paymentDispute(organizationId, dispute.id);
  const opened = await Billing.recordPayment(organizationId, {
    entryType: "Dispute",
    amount: fromUnits(-units),
    reason: "Dispute",
    description: `Dispute (${dispute.reason}) of card payment ${paymentId}`,
    reference: dispute.id,
    items: [
      {
        Put: {
          Item: { ...key, entity: entities.paymentDispute, disputeId: dispute.id, paymentId, amountUnits: units, state: "Open", createdAt: nowIso() },
          ConditionExpression: "attribute_not_exists(pk)",
        },
      },
    ],
  });
  let closed = false;
  const closing = dispute.status === "won" ? "Won" : dispute.status === "lost" ? "Lost" : undefined;
  if (closing === "Won") {
    closed = await Billing.recordPayment(organizationId, {
      entryType: "DisputeWon",
      amount: fromUnits(units),
      reason: "DisputeWon",
      description: `Dispute of card payment ${paymentId} won: its amount is returned`,
      reference: dispute.id,
      items: [closeDispute(key, closing)],
    });
  } else if (closing === "Lost") {
    closed = (await conditionally(table.update(closeDispute(key, closing).Update!))) !== undefined;
  }
  await reconcileSuspension(organizationId, { afterRefund: false });
  return opened || closed ? "recorded" : "ignored";
}

function closeDispute(key: { pk: string; sk: string }, state: "Won" | "Lost"): TransactItem {
  return {
    Update: {
      Key: key,
      UpdateExpression: "SET #state = :state, closedAt = :now",
      ConditionExpression: "#state = :open",
      ExpressionAttributeNames: { "#state": "state" },
      ExpressionAttributeValues: { ":state": state, ":open": "Open", ":now": nowIso() },
    },
  };
}

/**
 * Keeps the wallet's suspension in line with its payments: suspended while a
 * dispute is open, or after a refund left the available balance below the
 * floor; such a suspension lifts once no dispute is open and the balance is
 * back. A suspension by the operator is never lifted here. Each step is a
 * conditional write, so concurrent events and a retried event agree.
 */
async function reconcileSuspension(organizationId: string, { afterRefund }: { afterRefund: boolean }): Promise<void> {
  const { Items = [] } = await table.query({
    KeyConditionExpression: "pk = :pk AND begins_with(sk, :prefix)",
    FilterExpression: "#state = :open",
    ExpressionAttributeNames: { "#state": "state" },
    ExpressionAttributeValues: { ":pk": keys.wallet(organizationId).pk, ":prefix": "DISPUTE#", ":open": "Open" },
  });
  const now = nowIso();
  const floor = toUnits(BALANCE_FLOOR);
  const suspend = (reason: string, condition: string, values: Record<string, unknown> = {}) =>
    conditionally(
      table.update({
        Key: keys.wallet(organizationId),
        UpdateExpression: "SET suspendedAt = :now, suspendedReason = :reason, modifiedAt = :now",
        ConditionExpression: `attribute_exists(pk) AND attribute_not_exists(suspendedAt)${condition}`,
        ExpressionAttributeValues: { ":now": now, ":reason": reason, ...values },
      }),
    );
  if (Items.length > 0) await suspend(suspendedForDispute, "");
  else if (afterRefund) await suspend(suspendedForRefund, " AND availableUnits < :floor", { ":floor": floor });
  if (Items.length > 0) return;
  await conditionally(
    table.update({
      Key: keys.wallet(organizationId),
      UpdateExpression: "SET modifiedAt = :now REMOVE suspendedAt, suspendedReason",
      ConditionExpression: "suspendedReason IN (:dispute, :refund) AND availableUnits >= :floor",
      ExpressionAttributeValues: { ":now": now, ":dispute": suspendedForDispute, ":refund": suspendedForRefund, ":floor": floor },
    }),
  );
}

async function storedTopUp(organizationId: string, topUpId: string): Promise<StoredTopUp | undefined> {
  const { Item } = await table.get({ Key: keys.topUp(organizationId, topUpId), ConsistentRead: true });
  return Item as StoredTopUp | undefined;
}

/** Sets fields of a stored top-up (only while it is in `from`, when given). */
function setTopUp(organizationId: string, topUpId: string, fields: Partial<StoredTopUp>, from?: TopUpStatus) {
  const entries = Object.entries(fields).filter(([, value]) => value !== undefined);
  return table.update({
    Key: keys.topUp(organizationId, topUpId),
    UpdateExpression: `SET ${entries.map((_, index) => `#f${index} = :v${index}`).join(", ")}`,
    ConditionExpression: from ? "#status = :from" : "attribute_exists(pk)",
    ExpressionAttributeNames: { ...Object.fromEntries(entries.map(([name], index) => [`#f${index}`, name])), ...(from ? { "#status": "status" } : {}) },
    ExpressionAttributeValues: { ...Object.fromEntries(entries.map(([, value], index) => [`:v${index}`, value])), ...(from ? { ":from": from } : {}) },
  });
}

function toTopUp(id: string, stored: StoredTopUp): TopUp {
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
