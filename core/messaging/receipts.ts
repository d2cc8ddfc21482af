import { messagingConfig } from "#core/messaging/config";
import { finishMessage } from "#core/messaging/billing-seam";
import { finished } from "#core/messaging/outbound";
import { messageLifecycle } from "#core/shared/status";
import { changeMessage, readMessage } from "#core/messaging/store";
import { applyReceipt } from "#core/messaging/webhooks";
import { providerByName } from "#core/providers/index";
import { ProviderError, type MessageStatusReport } from "#core/providers/port";

/** How long past the receipt timeout a carrier that keeps failing to answer is asked again before the message turns Unknown. */
const LOOKUP_GRACE_MS = 24 * 60 * 60 * 1000;
/** Never ask again sooner than this. */
const MIN_RECHECK_MS = 60_000;

export type ReceiptCheckOutcome = "reconciled" | "rechecked" | "expired";

/**
 * A message handed to the carrier whose final receipt has not come by its due
 * time (`ReceiptTimeout` in the due index, first `receiptCheckMs` after the
 * hand-off): the carrier is asked (`fetchMessageStatus`, Twilio's Message
 * resource).
 * - A final status is applied through the ranked lifecycle like its callback
 *   would be (`applyReceipt`): billing settles once, the due entry goes.
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
export async function checkReceipt(organizationId: string, messageId: string, seen: string, now: number): Promise<ReceiptCheckOutcome | undefined> {
  const message = await readMessage(organizationId, messageId);
  if (!message || (message.status !== "Sending" && message.status !== "Sent")) return undefined;
  const claim = { condition: "gsi3sk = :seen", values: { ":seen": seen } };
  const lookup = await lookUp(message.provider, message.providerMessageId);
  const report = lookup === "unreachable" ? undefined : lookup;
  if (report && messageLifecycle.isFinal(report.status)) {
    return (await applyReceipt(organizationId, message, report, claim)) ? "reconciled" : undefined;
  }
  if (report?.status === "Sent" && message.status === "Sending") await applyReceipt(organizationId, message, report, claim);
  const handedAt = Date.parse(message.sendingStartedAt ?? message.createdAt);
  const timeout = handedAt + messagingConfig.receiptTimeoutMs;
  const giveUp = lookup === "unreachable" ? timeout + LOOKUP_GRACE_MS : timeout;
  if (now < giveUp) {
    const next = Math.max(now + MIN_RECHECK_MS, now < timeout ? Math.min(timeout, handedAt + 2 * (now - handedAt)) : now + messagingConfig.receiptCheckMs);
    const moved = await changeMessage(organizationId, messageId, {
      from: ["Sending", "Sent"],
      ...claim,
      set: {},
      due: { at: new Date(next).toISOString(), kind: "ReceiptTimeout" },
    });
    return moved ? "rechecked" : undefined;
  }
  const hours = Math.round(messagingConfig.receiptTimeoutMs / 3_600_000);
  const carrierSays = report ? ` The carrier still reports ${report.providerStatus}.` : lookup === "unreachable" ? " The carrier could not be asked." : "";
  // No provider message id: the carrier never acknowledged the hand-off, so nothing is charged (docs/decisions.md).
  const ended = message.providerMessageId
    ? await finishMessage(organizationId, message, {
        from: ["Sending", "Sent"],
        ...claim,
        set: { status: "Unknown", statusReason: `No final delivery receipt within ${hours} hours.${carrierSays}` },
        due: null,
      }, { type: "MessageUnknown" })
    : await finishMessage(organizationId, message, {
        from: ["Sending", "Sent"],
        ...claim,
        set: {
          status: "Failed",
          failedAt: new Date(now).toISOString(),
          errorCode: "NotAcceptedByCarrier",
          statusReason: `The carrier never acknowledged the message (no provider message id within ${hours} hours); not charged.`,
        },
        due: null,
      }, { type: "MessageFailed" });
  if (!ended) return undefined;
  await finished(organizationId, ended.message);
  return "expired";
}

/** The carrier's report of a message; undefined when it does not know it or cannot be asked for it, "unreachable" on a transient error. */
async function lookUp(providerName: string | null | undefined, providerMessageId: string | null | undefined): Promise<MessageStatusReport | "unreachable" | undefined> {
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
