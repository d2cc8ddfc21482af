import * as v from "valibot";
import { refund, applyDispute } from "#core/billing/payment-reversals";
import {
  type TopUp,
  type StoredTopUp,
  readTopUp,
  storedTopUp,
  setTopUp,
  toTopUp,
  creditPayment,
  paidPayment,
  paymentOf,
} from "#core/billing/payment-records";
import { actorId, type Actor } from "#core/auth/actor";
import * as Billing from "#core/billing/index";
import { MAX_TOP_UP, toUnits } from "#core/billing/index";
import { stripe, toMinorUnits, verifiedEvent, type Stripe } from "#core/billing/stripe";
import { config } from "#core/config";
import { table } from "#core/db/items";
import { TopUpEntity } from "#core/db/entities/billing";
import { where } from "#core/db/expression";
import { PaymentProviderUnavailableError, ValidationError } from "#core/errors";
import { logger } from "#core/observability/index";
import { newId, nowIso } from "#core/shared/ids";
import { describedCheck, statedShape } from "#core/shared/validation";
import * as Money from "#core/shared/money";

/** Smallest top-up: below it the card fees outweigh the credit. */
export { TopUpSchema, topUpStatuses, type TopUp, type TopUpStatus } from "#core/billing/payment-records";

export const MIN_TOP_UP = "1.00";

const CARD_AMOUNT = /^(?:0|[1-9]\d*)(?:\.\d{1,2})?$/;

const returnUrl = v.pipe(
  v.string(),
  v.maxLength(2048),
  v.url("Must be an absolute URL."),
  v.regex(/^https?:\/\//i, "Must be an http(s) URL."),
);

/** Body of `POST /billing/wallet/top-ups`. */
export const StartTopUpSchema = v.strictObject({
  /** What to pay and credit, in the wallet's currency: a card payment, so at most 2 decimals. */
  amount: v.pipe(
    v.union(
      [
        v.pipe(
          v.string(),
          statedShape({
            pattern: "^[1-9]\\d{0,4}(?:\\.\\d{1,2})?$",
            description: `From ${MIN_TOP_UP} to ${Money.toScale(MAX_TOP_UP, 2)}, at most 2 decimals.`,
          }),
        ),
        v.pipe(
          v.number(),
          describedCheck<number>(() => true, "", {
            minimum: Number(MIN_TOP_UP),
            maximum: Number(MAX_TOP_UP),
            multipleOf: 0.01,
          }),
        ),
      ],
      'Must be a decimal amount such as "25.00".',
    ),
    v.transform((value) => String(value)),
    v.rawCheck(({ dataset, addIssue }) => {
      if (!dataset.typed) return;
      if (!CARD_AMOUNT.test(dataset.value))
        addIssue({ message: 'Must be a positive amount with at most 2 decimals, such as "25.00".' });
      else if (Money.compare(dataset.value, MIN_TOP_UP) < 0) addIssue({ message: `Must be at least ${MIN_TOP_UP}.` });
      else if (Money.compare(dataset.value, MAX_TOP_UP) > 0)
        addIssue({ message: `Must be at most ${Money.toScale(MAX_TOP_UP, 2)}.` });
    }),
  ),
  /** Where the payment page sends the payer after paying; default the dashboard. */
  successUrl: v.optional(returnUrl),
  /** Where the payment page sends the payer who gives up; default the dashboard. */
  cancelUrl: v.optional(returnUrl),
});
export type StartTopUp = v.InferOutput<typeof StartTopUpSchema>;

function sessionRefused(): PaymentProviderUnavailableError {
  return new PaymentProviderUnavailableError(
    "The payment provider could not start the payment; nothing was charged. Retry with a new Idempotency-Key.",
  );
}

export type PaymentEventOutcome = "credited" | "recorded" | "ignored";

/**
 * `POST /billing/wallet/top-ups`: a pending top-up and its Checkout Session.
 * The top-up is stored before the session is created, so a paid session
 * always finds it; the provider call carries the top-up id as its
 * Idempotency-Key, so the library's retries create one session.
 *
 * `topUpId`: the id fixed by the request's Idempotency-Key. A retry after the first request died finds its top-up:
 * answered as it is once it has its session, else its session is created (the same one at Stripe, whose key is the
 * top-up id) and recorded; so one key makes one top-up and one payment page.
 */
export async function startTopUp(actor: Actor, input: StartTopUp, options: { topUpId?: string } = {}): Promise<TopUp> {
  const organizationId = actor.organizationId;
  const client = await stripe();
  const id = options.topUpId ?? newId();
  const earlier = options.topUpId ? await storedTopUp(organizationId, id) : undefined;
  if (earlier?.status === "Failed") throw sessionRefused();
  if (earlier?.checkoutSessionId) return toTopUp(id, earlier);
  const stored: StoredTopUp = earlier ?? {
    amountUnits: toUnits(input.amount),
    currency: (await Billing.wallet(organizationId)).currency,
    status: "Pending",
    createdBy: actorId(actor),
    createdAt: nowIso(),
  };
  const { currency } = stored;
  if (!earlier)
    await table.put(TopUpEntity.putAt({ organizationId, topUpId: id }, { ...stored }, { condition: where.new() }));
  const back = `${config.publicBaseUrl.replace(/\/$/, "")}/app/?topUp=${id}`;
  const metadata = { organizationId, topUpId: id };
  let session: Stripe.Checkout.Session;
  try {
    session = await client.checkout.sessions.create(
      {
        mode: "payment",
        line_items: [
          {
            quantity: 1,
            price_data: {
              currency: currency.toLowerCase(),
              unit_amount: toMinorUnits(input.amount),
              product_data: { name: "Wallet top-up" },
            },
          },
        ],
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
    throw sessionRefused();
  }
  const payable = { checkoutSessionId: session.id, checkoutUrl: session.url ?? undefined };
  await setTopUp(organizationId, id, payable);
  return toTopUp(id, { ...stored, ...payable });
}

/** `GET /billing/wallet/top-ups/{topUpId}`. */
export async function topUp(actor: Actor, topUpId: string): Promise<TopUp> {
  return readTopUp(actor.organizationId, topUpId);
}

/**
 * `POST /webhooks/payments/stripe`: applies one signed Stripe event. Every
 * event may come more than once and in any order; each changes the wallet at
 * most once. Events about payments this API did not start are ignored.
 */
export async function receiveStripeEvent(payload: string, signature: string | undefined): Promise<PaymentEventOutcome> {
  const event = await verifiedEvent(payload, signature);
  if (!event)
    throw new ValidationError(
      "The Stripe-Signature header does not verify against this endpoint's signing secret.",
      [],
    );
  switch (event.type) {
    case "checkout.session.completed":
    case "checkout.session.async_payment_succeeded": {
      const session = event.data.object;
      // A delayed method (bank debit) completes the session unpaid; its async_payment_succeeded follows.
      if (session.payment_status !== "paid") return "ignored";
      const paymentId =
        typeof session.payment_intent === "string"
          ? session.payment_intent
          : (session.payment_intent?.id ?? session.id);
      return creditPayment(
        paidPayment(session.metadata, paymentId, session.amount_total, session.currency, session.id),
      );
    }
    case "payment_intent.succeeded": {
      const intent = event.data.object;
      return creditPayment(paidPayment(intent.metadata, intent.id, intent.amount_received, intent.currency));
    }
    case "checkout.session.expired": {
      const { organizationId, topUpId } = event.data.object.metadata ?? {};
      if (!organizationId || !topUpId) return "ignored";
      const expired = await setTopUp(organizationId, topUpId, { status: "Expired", completedAt: nowIso() }, "Pending");
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
}
