/** Money the payment provider takes back (refunds, disputes) and the wallet suspension that follows it. */
import { type PaymentEventOutcome } from "#core/billing/payments";
import { type PaidPayment } from "#core/billing/payment-records";
import * as Billing from "#core/billing/index";
import { BALANCE_FLOOR, fromUnits, toUnits } from "#core/billing/index";
import { fromMinorUnits, type Stripe } from "#core/billing/stripe";
import { gatherShards } from "#core/billing/wallet-shards";
import { conditionally, table } from "#core/db/items";
import { PaymentDisputeEntity, PaymentEntity, TopUpEntity, WalletEntity } from "#core/db/entities/billing";
import { where, type Condition } from "#core/db/expression";
import { nowIso } from "#core/shared/ids";

/** Why a wallet was suspended by a payment event; only these suspensions lift by themselves. */
export const suspendedForDispute = "A payment was disputed";
export const suspendedForRefund = "A refund left the available balance below zero";

/** Records what was refunded since the last refund event (Stripe reports the charge's cumulative refunded amount). */
export async function refund(
  payment: PaidPayment,
  refundedMinor: number,
  chargeId: string,
): Promise<PaymentEventOutcome> {
  const { organizationId, paymentId, topUpId } = payment;
  for (let attempt = 0; attempt < 5; attempt++) {
    const Item = await PaymentEntity.get({ organizationId, paymentId }, { consistent: true });
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
          Update: PaymentEntity.update(
            { organizationId, paymentId },
            { refundedUnits: total },
            { condition: where.equals("refundedUnits", previous) },
          ),
        },
        {
          Update: TopUpEntity.update(
            { organizationId, topUpId },
            { refundedUnits: total, status: total >= Number(Item.amountUnits) ? "Refunded" : "Succeeded" },
            { condition: where.stored() },
          ),
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
export async function applyDispute(payment: PaidPayment, dispute: Stripe.Dispute): Promise<PaymentEventOutcome> {
  // An inquiry (`warning_…`) withdraws no funds at Stripe, so the wallet keeps them; only a real dispute is taken.
  if (dispute.status.startsWith("warning_")) return "ignored";
  const { organizationId, paymentId } = payment;
  const units = toUnits(fromMinorUnits(dispute.amount));
  const disputeId = dispute.id;
  const opened = await Billing.recordPayment(organizationId, {
    entryType: "Dispute",
    amount: fromUnits(-units),
    reason: "Dispute",
    description: `Dispute (${dispute.reason}) of card payment ${paymentId}`,
    reference: dispute.id,
    items: [
      {
        Put: PaymentDisputeEntity.putAt(
          { organizationId, disputeId },
          { disputeId, paymentId, amountUnits: units, state: "Open", createdAt: nowIso() },
          { condition: where.new() },
        ),
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
      items: [{ Update: closeDispute(organizationId, disputeId, closing) }],
    });
  } else if (closing === "Lost") {
    closed = (await conditionally(table.update(closeDispute(organizationId, disputeId, closing)))) !== undefined;
  }
  await reconcileSuspension(organizationId, { afterRefund: false });
  return opened || closed ? "recorded" : "ignored";
}

/** The update that closes an open dispute (once: only from Open). */
export function closeDispute(organizationId: string, disputeId: string, state: "Won" | "Lost") {
  return PaymentDisputeEntity.update(
    { organizationId, disputeId },
    { state, closedAt: nowIso() },
    { condition: where.equals("state", "Open") },
  );
}

/**
 * Keeps the wallet's suspension in line with its payments: suspended while a
 * dispute is open, or after a refund left the available balance below the
 * floor; such a suspension lifts once no dispute is open and the balance is
 * back. A suspension by the operator is never lifted here. Each step is a
 * conditional write, so concurrent events and a retried event agree.
 */
export async function reconcileSuspension(
  organizationId: string,
  { afterRefund }: { afterRefund: boolean },
): Promise<void> {
  // The conditions below read the wallet item's available money: the shards give theirs back first, so it is all there.
  await gatherShards(organizationId);
  const { Items = [] } = await table.query(
    PaymentDisputeEntity.queryPartition(
      "collection",
      { organizationId },
      { range: { beginsWith: PaymentDisputeEntity.sortKey("collection", {}) }, filter: where.equals("state", "Open") },
    ),
  );
  const now = nowIso();
  const floor = toUnits(BALANCE_FLOOR);
  const suspend = (reason: string, condition?: Condition) =>
    conditionally(
      table.update(
        WalletEntity.update(
          { organizationId },
          { suspendedAt: now, suspendedReason: reason, modifiedAt: now },
          { condition: where.all(where.stored(), where.absent("suspendedAt"), condition) },
        ),
      ),
    );
  if (Items.length > 0) await suspend(suspendedForDispute);
  else if (afterRefund) await suspend(suspendedForRefund, where.before("availableUnits", floor));
  // A refill that raced the suspension is given back (a suspended wallet's holds come from the wallet item only).
  await gatherShards(organizationId);
  if (Items.length > 0) return;
  await conditionally(
    table.update(
      WalletEntity.update(
        { organizationId },
        { modifiedAt: now },
        {
          remove: ["suspendedAt", "suspendedReason"],
          condition: where.all(
            where.oneOf("suspendedReason", [suspendedForDispute, suspendedForRefund]),
            where.atLeast("availableUnits", floor),
          ),
        },
      ),
    ),
  );
}
