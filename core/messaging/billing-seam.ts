import { Billing, messageCost, TransactionConditionFailed, WalletRefusedError, type BillingOutcome, type TransactItem } from "#core/billing/index";
import { keys } from "#core/db/keys";
import type { Message } from "#core/messaging/model";
import { messageLifecycle, type MessageStatus } from "#core/shared/status";
import { messageUpdate, readMessage, type MessageChange } from "#core/messaging/store";
import { MessagingEvents, messageEventInput, type MessagingEventType } from "#core/messaging/timeline";
import { Transaction } from "#core/db/transact";
import type { Actor } from "#core/auth/actor";

/**
 * The billing seam of the send pipeline. Messaging calls these functions
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

/** The writes that settle (charged statuses) or release (the others) the hold of a message in its final `status`. */
async function settlementPlan(organizationId: string, message: Message): Promise<{ items: TransactItem[]; outcome: BillingOutcome }> {
  if (message.direction !== "Outbound") return { items: [], outcome: { billingStatus: "NotBillable", billableAmount: "0.0000" } };
  if (!CHARGED.has(message.status)) return Billing.releaseItems(organizationId, message.id);
  const kind = message.channel === "Mms" ? "mms" : "sms";
  return Billing.settlement({
    organizationId,
    reservationId: message.id,
    relatedEntityId: message.id,
    amount: messageCost(await Billing.prices(organizationId), { kind, segments: message.segments }).amount,
    reason: kind === "mms" ? "MmsMessage" : "SmsSegments",
    description: `${kind === "mms" ? "MMS" : `SMS, ${message.segments} segment(s)`} to ${message.toPhoneNumber}`,
    quantity: kind === "mms" ? 1 : message.segments,
  });
}

/**
 * Settles the hold of a message that is already final (charge for Delivered,
 * Undelivered, Unknown; release for Failed, Blocked, Canceled): the charge, the
 * ledger entry, the wallet and the message's `billingStatus`/`billableAmount`
 * are one transaction; repeating it changes nothing. Used where the final
 * status was written before the hold existed (a lost claim) and by the hold
 * sweeper. Answers the outcome when this call settled it.
 */
export async function settleMessage(organizationId: string, message: Message): Promise<BillingOutcome | undefined> {
  const { items, outcome } = await settlementPlan(organizationId, message);
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

/**
 * Moves a message to a final status and settles its hold in ONE transaction
 * (like calls): a crash can never leave a final message holding money, nor a
 * charge on a message that is not final. `message` is the caller's read (its
 * id, channel, segments and recipient, which never change). Answers the stored
 * message and the billing outcome, or undefined when the message was no longer
 * in one of `change.from` (someone else moved it first).
 */
export async function finishMessage(
  organizationId: string,
  message: Message,
  change: MessageChange & { set: { status: MessageStatus } },
  event: { type: MessagingEventType; actor?: Actor },
): Promise<{ message: Message; billed: BillingOutcome | undefined } | undefined> {
  // Unknown is not final (a late receipt may still replace it) but it settles the hold.
  if (!messageLifecycle.isFinal(change.set.status) && change.set.status !== "Unknown") {
    throw new Error(`finishMessage needs a settling status, not ${change.set.status}.`);
  }
  for (let attempt = 0; attempt < 5; attempt++) {
    const { items, outcome } = await settlementPlan(organizationId, { ...message, status: change.set.status });
    const billed = items.length > 0 ? outcome : undefined;
    const set = billed ? { ...change.set, billingStatus: billed.billingStatus, billableAmount: Number(billed.billableAmount) } : change.set;
    // The status, its settlement and its event are one write: a crash leaves all three or none.
    const transaction = new Transaction();
    transaction.add({ Update: messageUpdate(organizationId, message.id, { ...change, set }) }, ...items);
    MessagingEvents.item(organizationId, messageEventInput({ ...message, ...set } as Message, event.type, event.actor), transaction);
    try {
      await Billing.commit(transaction);
    } catch (error) {
      if (!(error instanceof TransactionConditionFailed)) throw error;
      if (error.failedIndexes.includes(0)) return undefined;
      continue; // the hold was settled or released meanwhile (the hold sweeper): plan again
    }
    return { message: (await readMessage(organizationId, message.id))!, billed };
  }
  throw new Error(`The hold of message ${message.id} kept changing while it was being settled.`);
}

function usageRecord(organizationId: string, messageId: string, outcome: BillingOutcome): TransactItem {
  return {
    Update: {
      Key: keys.message(organizationId, messageId),
      UpdateExpression: "SET billingStatus = :status, billableAmount = :amount",
      ConditionExpression: "attribute_exists(pk)",
      ExpressionAttributeValues: { ":status": outcome.billingStatus, ":amount": Number(outcome.billableAmount) },
    },
  };
}
