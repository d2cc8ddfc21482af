/** Money the payment provider takes back (refunds, disputes) and the wallet suspension that follows it. */
import { type PaymentEventOutcome } from "#core/billing/payments";
import { type PaidPayment } from "#core/billing/payment-records";
import { Billing, BALANCE_FLOOR, fromUnits, toUnits, type TransactItem } from "#core/billing/index";
import { fromMinorUnits, type Stripe } from "#core/billing/stripe";
import { gatherShards } from "#core/billing/wallet-shards";
import { conditionally, table } from "#core/db/items";
import { entities, keys } from "#core/db/keys";
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
            ExpressionAttributeValues: {
              ":total": total,
              ":status": total >= Number(Item.amountUnits) ? "Refunded" : "Succeeded",
            },
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
export async function applyDispute(payment: PaidPayment, dispute: Stripe.Dispute): Promise<PaymentEventOutcome> {
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
          Item: {
            ...key,
            entity: entities.paymentDispute,
            disputeId: dispute.id,
            paymentId,
            amountUnits: units,
            state: "Open",
            createdAt: nowIso(),
          },
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

export function closeDispute(key: { pk: string; sk: string }, state: "Won" | "Lost"): TransactItem {
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
export async function reconcileSuspension(
  organizationId: string,
  { afterRefund }: { afterRefund: boolean },
): Promise<void> {
  // The conditions below read the wallet item's available money: the shards give theirs back first, so it is all there.
  await gatherShards(organizationId);
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
  // A refill that raced the suspension is given back (a suspended wallet's holds come from the wallet item only).
  await gatherShards(organizationId);
  if (Items.length > 0) return;
  await conditionally(
    table.update({
      Key: keys.wallet(organizationId),
      UpdateExpression: "SET modifiedAt = :now REMOVE suspendedAt, suspendedReason",
      ConditionExpression: "suspendedReason IN (:dispute, :refund) AND availableUnits >= :floor",
      ExpressionAttributeValues: {
        ":now": now,
        ":dispute": suspendedForDispute,
        ":refund": suspendedForRefund,
        ":floor": floor,
      },
    }),
  );
}
