import type { Message } from "#core/messaging/model";

/**
 * The billing seam of the send pipeline. Messaging calls these three functions
 * and nothing else about money; the billing work (issue 5) replaces their
 * bodies with the wallet check, the reservation written with the message, and
 * the settlement on the final status. Until then every send is allowed and free.
 */

export type BillingDecision =
  | { allowed: true; billingStatus?: string; billableAmount?: number }
  | { allowed: false; billingStatus: string; reason: string };

/**
 * `POST /messages` before anything is stored: throw PaymentRequiredError (402)
 * when the organization's wallet is empty or suspended.
 */
export async function assertCanSend(_organizationId: string): Promise<void> {}

/**
 * The consumer, just before a message leaves Queued for the provider: reserve
 * the estimated cost (segments × rate, MMS rate when media). A refusal ends the
 * message `Blocked` with the returned `billingStatus` and never reaches the provider.
 * Called again on a retry of the same message: must be idempotent per message id.
 */
export async function reserveForMessage(_message: Message): Promise<BillingDecision> {
  return { allowed: true };
}

/** The message reached a final status: charge the reservation (Delivered, Sent→Unknown) or release it (Failed, Blocked...). */
export async function settleMessage(_organizationId: string, _message: Message): Promise<void> {}
