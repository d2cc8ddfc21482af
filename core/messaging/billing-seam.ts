import { Billing, messageCost, TransactionConditionFailed, WalletRefusedError, type BillingOutcome } from "#core/billing/index";
import { tableName } from "#core/db/client";
import { keys } from "#core/db/keys";
import type { Message } from "#core/messaging/model";

/**
 * The billing seam of the send pipeline. Messaging calls these three functions
 * and nothing else about money; the wallet lives in core/billing.
 */

export type BillingDecision =
  | { allowed: true; billingStatus?: string; billableAmount?: number }
  | { allowed: false; billingStatus: string; reason: string };

/**
 * `POST /messages` before anything is stored: a suspended or empty wallet is a
 * 402 (WalletRefusedError, a PaymentRequiredError carrying `billingStatus`).
 */
export async function assertCanSend(organizationId: string): Promise<void> {
  const wallet = await Billing.wallet(organizationId);
  if (wallet.status === "Suspended") {
    throw new WalletRefusedError("WalletSuspended", wallet.status, `The wallet is suspended (${wallet.suspendedReason ?? "contact support"}); no messages can be sent.`);
  }
  if (wallet.status === "Empty") {
    throw new WalletRefusedError("InsufficientFunds", wallet.status, `The wallet has no available balance (${wallet.availableBalance} ${wallet.currency}); top it up to send.`);
  }
}

/**
 * The consumer, just before a message leaves Queued for the provider: reserves
 * the estimated cost (segments × segment rate; the MMS rate with media). A
 * refusal ends the message `Blocked` with `billingStatus` InsufficientFunds or
 * WalletSuspended. Idempotent per message id (the reservation is keyed by it).
 */
export async function reserveForMessage(organizationId: string, message: Message): Promise<BillingDecision> {
  const prices = await Billing.prices(organizationId);
  const { amount } = messageCost(prices, { kind: message.channel === "Mms" ? "mms" : "sms", segments: message.segments });
  try {
    const outcome = await Billing.reserve({ organizationId, reservationId: message.id, amount, relatedEntityType: "Message" });
    return { allowed: true, billingStatus: outcome.billingStatus, billableAmount: Number(outcome.billableAmount) };
  } catch (error) {
    if (!(error instanceof WalletRefusedError)) throw error;
    return { allowed: false, billingStatus: error.billingStatus, reason: error.message };
  }
}

/** Statuses that are billed: the carrier took the message (Twilio bills undelivered ones too). */
const CHARGED = new Set<Message["status"]>(["Delivered", "Undelivered", "Unknown", "Sent"]);

/**
 * The message reached a final status: charge the reservation (Delivered,
 * Undelivered, Unknown) or release it (Failed, Blocked, Canceled). The charge,
 * the ledger entry, the wallet and the message's `billingStatus`/`billableAmount`
 * are one transaction; repeating it changes nothing. Answers the outcome when
 * this call settled it (record the final event after it, so the event carries it).
 */
export async function settleMessage(organizationId: string, message: Message): Promise<BillingOutcome | undefined> {
  if (message.direction !== "Outbound") return undefined;
  const kind = message.channel === "Mms" ? "mms" : "sms";
  const plan = CHARGED.has(message.status)
    ? Billing.settlement({
        organizationId,
        reservationId: message.id,
        relatedEntityId: message.id,
        amount: messageCost(await Billing.prices(organizationId), { kind, segments: message.segments }).amount,
        reason: kind === "mms" ? "MmsMessage" : "SmsSegments",
        description: `${kind === "mms" ? "MMS" : `SMS, ${message.segments} segment(s)`} to ${message.toPhoneNumber}`,
        quantity: kind === "mms" ? 1 : message.segments,
      })
    : Billing.releaseItems(organizationId, message.id);
  const { items, outcome } = await plan;
  if (items.length === 0) return undefined;
  try {
    await Billing.commit([...items, usageRecord(organizationId, message.id, outcome)]);
  } catch (error) {
    // A concurrent duplicate callback settled it first: nothing left to do.
    if (error instanceof TransactionConditionFailed && error.failedIndexes.includes(0)) return undefined;
    throw error;
  }
  return outcome;
}

function usageRecord(organizationId: string, messageId: string, outcome: BillingOutcome) {
  return {
    Update: {
      TableName: tableName(),
      Key: keys.message(organizationId, messageId),
      UpdateExpression: "SET billingStatus = :status, billableAmount = :amount",
      ConditionExpression: "attribute_exists(pk)",
      ExpressionAttributeValues: { ":status": outcome.billingStatus, ":amount": Number(outcome.billableAmount) },
    },
  };
}
