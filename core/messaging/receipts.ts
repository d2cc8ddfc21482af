import { messagingConfig } from "#core/messaging/config";
import * as MessageLifecycle from "#core/messaging/lifecycle";
import { DISPATCH_GRACE_MS, recordProviderId } from "#core/messaging/lifecycle";
import type { Message } from "#core/messaging/model";
import { throttledAtCarrier } from "#core/messaging/outbound";
import { MessageSend } from "#core/messaging/queue";
import "#core/messaging/queue";
import { publish } from "#core/queue/messages";
import { queues } from "#stacks/definitions";
import { messageLifecycle } from "#core/shared/status";
import { changeMessage, dueEntryClaim, readMessage, refusedAttemptsOf } from "#core/messaging/store";
import { where, type Condition } from "#core/db/expression";
import { providerByName } from "#core/providers/index";
import { ProviderError, type MessageStatusReport } from "#core/providers/port";

/** How long past the receipt timeout a carrier that keeps failing to answer is asked again before the message turns Unknown. */
const LOOKUP_GRACE_MS = 24 * 60 * 60 * 1000;
/**
 * How long a consumer may hold a message claimed (Sending) before its hand-off counts as cut short: four times the
 * outbound consumer's function timeout, after which that consumer is surely gone (Lambda ends it).
 */
export const HANDOFF_LEASE_MS = 4 * queues.outboundMessages.consumerTimeoutSeconds * 1000;
/** Never ask again sooner than this. */
const MIN_RECHECK_MS = 60_000;

export type ReceiptCheckOutcome = "reconciled" | "rechecked" | "expired" | "resent";

/**
 * A message handed to the carrier whose final receipt has not come by its due
 * time (`ReceiptTimeout` in the due index, first `receiptCheckMs` after the
 * hand-off): the carrier is asked (`fetchMessageStatus`, Twilio's Message
 * resource).
 * - A final status is applied through the ranked lifecycle like its callback
 *   would be (`MessageLifecycle.applyReceipt`): billing settles once, the due entry goes.
 * - Not final yet (or the carrier did not answer) before the receipt timeout:
 *   a `sent` it reports is applied, and it is asked again after twice the
 *   time since the hand-off (1 h, 2 h, 4 h … up to the timeout).
 * - At the timeout, still nothing final: `Unknown` (its hold settled in the
 *   same transaction), saying what the carrier last said; a message that never
 *   got a provider id ends Failed (NotAcceptedByCarrier), not charged. A
 *   carrier that cannot be reached is retried for a day more.
 * Every write is conditional on the due entry read (`seen`), so overlapping
 * sweeps act once.
 */
export async function checkReceipt(
  organizationId: string,
  messageId: string,
  seen: string,
  now: number,
): Promise<ReceiptCheckOutcome | undefined> {
  const read = await readMessage(organizationId, messageId);
  if (!read || (read.status !== "Sending" && read.status !== "Sent")) return undefined;
  const claim = dueEntryClaim(seen);
  let message = read;
  if (!message.providerMessageId) {
    const handOff = await recoverHandOff(organizationId, message, claim, now);
    if (handOff !== "unresolved" && typeof handOff !== "object") return handOff;
    if (typeof handOff === "object") message = handOff;
  }
  const lookup = await lookUp(message.provider, message.providerMessageId);
  const report = lookup === "unreachable" ? undefined : lookup;
  if (report && messageLifecycle.isFinal(report.status)) {
    if (await throttledAtCarrier(organizationId, message, report)) return "resent";
    return (await MessageLifecycle.applyReceipt(organizationId, message, report, claim)) ? "reconciled" : undefined;
  }
  if (report?.status === "Sent" && message.status === "Sending")
    await MessageLifecycle.applyReceipt(organizationId, message, report, claim);
  const next = nextReceiptCheck({
    handedAt: Date.parse(message.sendingStartedAt ?? message.createdAt),
    now,
    carrierUnreachable: lookup === "unreachable",
    timeoutMs: messagingConfig.receiptTimeoutMs,
    checkMs: messagingConfig.receiptCheckMs,
  });
  if (next !== undefined) {
    const moved = await changeMessage(organizationId, messageId, {
      from: ["Sending", "Sent"],
      ...claim,
      set: {},
      due: { at: new Date(next).toISOString(), kind: "ReceiptTimeout" },
    });
    return moved ? "rechecked" : undefined;
  }
  const hours = Math.round(messagingConfig.receiptTimeoutMs / 3_600_000);
  const carrierSays = report
    ? ` The carrier still reports ${report.providerStatus}.`
    : lookup === "unreachable"
      ? " The carrier could not be asked."
      : "";
  // No provider message id: the carrier never acknowledged the hand-off, so nothing is charged (docs/decisions.md).
  const ended = message.providerMessageId
    ? await MessageLifecycle.finish(organizationId, message, {
        from: ["Sending", "Sent"],
        ...claim,
        set: { status: "Unknown", statusReason: `No final delivery receipt within ${hours} hours.${carrierSays}` },
        due: null,
      })
    : await MessageLifecycle.finish(organizationId, message, {
        from: ["Sending", "Sent"],
        ...claim,
        set: {
          status: "Failed",
          failedAt: new Date(now).toISOString(),
          errorCode: "NotAcceptedByCarrier",
          statusReason: `The carrier never acknowledged the message (no provider message id within ${hours} hours); not charged.`,
        },
        due: null,
      });
  return ended ? "expired" : undefined;
}

/**
 * When to ask the carrier again about a message handed over at `handedAt` with no final receipt at `now`: twice the
 * time since the hand-off (so 1 h, 2 h, 4 h … after a first check at `checkMs`), never past the receipt timeout and
 * never sooner than a minute; a carrier that could not be asked is asked every `checkMs` for a day past the timeout.
 * Undefined: time to give up (the message turns Unknown, or Failed if the carrier never acknowledged it).
 */
export function nextReceiptCheck(at: {
  handedAt: number;
  now: number;
  carrierUnreachable: boolean;
  timeoutMs: number;
  checkMs: number;
}): number | undefined {
  const { handedAt, now } = at;
  const timeout = handedAt + at.timeoutMs;
  const giveUp = at.carrierUnreachable ? timeout + LOOKUP_GRACE_MS : timeout;
  if (now >= giveUp) return undefined;
  const doubled = now < timeout ? Math.min(timeout, handedAt + 2 * (now - handedAt)) : now + at.checkMs;
  return Math.max(now + MIN_RECHECK_MS, doubled);
}

/**
 * A message claimed for the carrier (Sending) whose answer was never stored: the consumer died during the hand-off,
 * or the request timed out. Once its hand-off lease has passed (the consumer is surely gone: the lease is four times
 * its function timeout), the carrier is asked whether it took the message, by our id (its idempotency key):
 * - it did: its provider id is recorded, and the receipt check goes on with it (the message answered);
 * - it did not: the message is queued again for another attempt (`resent`; its hold kept, its retry count moved on so
 *   no stale claim can send it), sent with the same idempotency key;
 * - it cannot say (no lookup, unreachable): "unresolved", and the receipt timeout decides as before.
 * Before the lease ends the check is set for its end (`rechecked`). Writes are conditional on the due entry read.
 */
async function recoverHandOff(
  organizationId: string,
  message: Message,
  claim: { condition: Condition },
  now: number,
): Promise<Message | "rechecked" | "resent" | undefined | "unresolved"> {
  const claimedAt = Date.parse(message.sendingStartedAt ?? message.createdAt);
  // A carrier's Sent callback (it names our id) may have come while the answer was lost: the id is still to be found.
  if (message.status !== "Sending" && message.status !== "Sent") return "unresolved";
  if (now < claimedAt + HANDOFF_LEASE_MS) {
    const moved = await changeMessage(organizationId, message.id, {
      from: [message.status],
      ...claim,
      set: {},
      due: { at: new Date(claimedAt + HANDOFF_LEASE_MS).toISOString(), kind: "ReceiptTimeout" },
    });
    return moved ? "rechecked" : undefined;
  }
  const provider = message.provider ? providerByName(message.provider) : undefined;
  if (!provider?.findSentMessage || !message.fromPhoneNumber) return "unresolved";
  let taken;
  try {
    taken = await provider.findSentMessage({
      // The message's attempts refused for throttling were sent with the same key, body and numbers, maybe inside
      // the search's clock skew: never this attempt.
      exclude: await refusedAttemptsOf(organizationId, message.id),
      idempotencyKey: message.id,
      from: message.fromPhoneNumber,
      to: message.toPhoneNumber,
      ...(message.body ? { body: message.body } : {}),
      since: new Date(claimedAt).toISOString(),
    });
  } catch (error) {
    if (!(error instanceof ProviderError)) throw error;
    return "unresolved";
  }
  if (taken) {
    await recordProviderId(organizationId, message.id, taken.providerMessageId);
    return { ...message, providerMessageId: taken.providerMessageId };
  }
  // The carrier said Sent: it has the message even if its lookup cannot find it, so it is never sent again.
  if (message.status === "Sent") return "unresolved";
  // A carrier whose search lags may not list it yet: asked again at the next check, never sent again on a miss too early.
  if (now < claimedAt + (provider.handOffSearchSettleMs ?? 0)) return "unresolved";
  const requeued = await MessageLifecycle.move(
    organizationId,
    message,
    {
      from: ["Sending"],
      condition: where.all(claim.condition, where.equals("retryCount", message.retryCount)),
      set: {
        status: "Queued",
        retryCount: message.retryCount + 1,
        nextRetryAt: null,
        errorCode: "HandOffInterrupted",
        statusReason: `The hand-off to ${provider.name} was cut short and the carrier does not have the message: sending it again.`,
      },
      due: { at: new Date(now + DISPATCH_GRACE_MS).toISOString(), kind: "Dispatch" },
    },
    { type: "MessageRetryScheduled" },
  );
  if (!requeued) return undefined;
  await publish(MessageSend, organizationId, { messageId: message.id });
  return "resent";
}

/** The carrier's report of a message; undefined when it does not know it or cannot be asked for it, "unreachable" on a transient error. */
async function lookUp(
  providerName: string | null | undefined,
  providerMessageId: string | null | undefined,
): Promise<MessageStatusReport | "unreachable" | undefined> {
  const provider = providerName ? providerByName(providerName) : undefined;
  if (!provider?.fetchMessageStatus || !providerMessageId) return undefined;
  try {
    return await provider.fetchMessageStatus(providerMessageId);
  } catch (error) {
    if (!(error instanceof ProviderError)) throw error;
    // A carrier that refuses the lookup (bad credentials, unknown account) cannot say: only a transient failure is worth asking again.
    return error.kind === "transient" ? "unreachable" : undefined;
  }
}
