import * as Billing from "#core/billing/index";
import {
  messageCost,
  outcomeOf,
  OwnerMovedOnError,
  WalletRefusedError,
  type PriceList,
  type BillingOutcome,
  type StoredReservation,
  type WalletParts,
} from "#core/billing/index";
import type { Message } from "#core/messaging/model";
import { messageHoldUpdate, storedHoldOnMessage } from "#core/messaging/store";

/**
 * The billing seam of the send pipeline: the checks before a message spends (`assertCanSend` before it is stored,
 * `reserveForMessage` before it is dispatched). The wallet lives in core/billing; a message's status change that
 * moves money goes through core/messaging/lifecycle.ts, and a send's first read takes the wallet's items from
 * core/billing/wallet-read.ts (core/messaging/send-read.ts).
 */

export type BillingDecision =
  | { allowed: true; billingStatus?: string; billableAmount?: number }
  | { allowed: false; billingStatus: string; reason: string }
  /** The message moved on (ended, or claimed by another) before it could be held: this dispatch has nothing to do. */
  | { allowed: false; movedOn: true };

/**
 * `POST /messages` before anything is stored: a suspended or empty wallet is a
 * 402 (WalletRefusedError, a PaymentRequiredError carrying `billingStatus`).
 * `read`: the wallet's items as the send's first read found them (core/messaging/send-read.ts).
 */
export async function assertCanSend(organizationId: string, read?: { parts: WalletParts | undefined }): Promise<void> {
  const wallet = await Billing.standing(organizationId, read);
  if (wallet.status === "Suspended") {
    throw new WalletRefusedError(
      "WalletSuspended",
      wallet.status,
      `The wallet is suspended (${wallet.suspendedReason ?? "contact support"}); no messages can be sent.`,
    );
  }
  if (wallet.status === "Empty") {
    throw new WalletRefusedError(
      "InsufficientFunds",
      wallet.status,
      `The wallet has no available balance (${wallet.availableBalance} ${wallet.currency}); top it up to send.`,
    );
  }
}

/**
 * The consumer, just before a message leaves Queued for the provider: reserves
 * the estimated cost (segments × segment rate; the MMS rate with media). A
 * refusal ends the message `Blocked` with `billingStatus` InsufficientFunds or
 * WalletSuspended. Idempotent per message: the hold is kept on the message's own item (core/messaging/store.ts,
 * `HOLD`), taken once. `read`: the prices, and the hold a message held before this version has as a Reservation item
 * (that one stands: no second hold is taken beside it).
 */
export async function reserveForMessage(
  organizationId: string,
  message: Message,
  read?: { prices: PriceList; reservation: StoredReservation | undefined },
): Promise<BillingDecision> {
  if (read?.reservation) return decisionOf(outcomeOf(read.reservation));
  const prices = read?.prices ?? (await Billing.prices(organizationId, message.id));
  const { amount } = messageCost(prices, {
    kind: message.channel === "Mms" ? "mms" : "sms",
    segments: message.segments,
  });
  try {
    const outcome = await Billing.reserve({
      organizationId,
      reservationId: message.id,
      amount,
      relatedEntityType: "Message",
      onOwner: {
        record: (hold) => ({ Update: messageHoldUpdate(organizationId, message.id, hold) }),
        stored: async () => {
          const held = await storedHoldOnMessage(organizationId, message.id);
          return held && outcomeOf(held);
        },
      },
    });
    return decisionOf(outcome);
  } catch (error) {
    if (error instanceof OwnerMovedOnError) return { allowed: false, movedOn: true };
    if (!(error instanceof WalletRefusedError)) throw error;
    return { allowed: false, billingStatus: error.billingStatus, reason: error.message };
  }
}

const decisionOf = (outcome: BillingOutcome): BillingDecision => ({
  allowed: true,
  billingStatus: outcome.billingStatus,
  billableAmount: Number(outcome.billableAmount),
});
