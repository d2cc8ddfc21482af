import { DEFAULT_RETRY_POLICY, RECEIPT_TIMEOUT_MS, type RetryPolicy } from "#core/shared/status";
import { environmentNames } from "#stacks/definitions";

/**
 * Messaging settings read from the environment (lazily, so the local runner and
 * tests can set them first). Defaults are the production values; tests shorten
 * the waits so retries and the simulator finish in seconds.
 */
export const messagingConfig = {
  get retryPolicy(): RetryPolicy {
    return {
      maxRetries: integer(environmentNames.messageMaxRetries) ?? DEFAULT_RETRY_POLICY.maxRetries,
      baseDelayMs: integer(environmentNames.messageRetryBaseMs) ?? DEFAULT_RETRY_POLICY.baseDelayMs,
      maxDelayMs: integer(environmentNames.messageRetryMaxDelayMs) ?? DEFAULT_RETRY_POLICY.maxDelayMs,
    };
  },
  /** How long a Sending/Sent message waits for a final receipt before it becomes Unknown. */
  get receiptTimeoutMs(): number {
    return integer(environmentNames.messageReceiptTimeoutMs) ?? RECEIPT_TIMEOUT_MS;
  },
  /**
   * When a Sending/Sent message without a final receipt is first looked up at
   * the carrier (after being handed to it); later lookups double the wait, up
   * to the receipt timeout.
   */
  get receiptCheckMs(): number {
    return Math.min(integer(environmentNames.messageReceiptCheckMs) ?? RECEIPT_CHECK_MS, this.receiptTimeoutMs);
  },
};

/**
 * The first lookup is 2 minutes after the hand-off: a receipt lost while the stack was down, or a hand-off cut short
 * (no provider id stored; core/messaging/receipts.ts HANDOFF_LEASE_MS), is settled within minutes, not hours. A
 * message delivered in seconds has left the due index by then, so only stragglers are asked (then at 4, 8, 16 … min).
 */
const RECEIPT_CHECK_MS = 2 * 60 * 1000;

function integer(name: string): number | undefined {
  const raw = process.env[name];
  if (raw === undefined || raw === "") return undefined;
  const value = Number(raw);
  return Number.isInteger(value) && value >= 0 ? value : undefined;
}
