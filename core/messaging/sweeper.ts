import { MessageSend } from "#core/messaging/queue";
import "#core/messaging/queue";
import { dueEntries } from "#core/db/due";
import { MessageEntity } from "#core/db/entities/messaging";
import * as MessageLifecycle from "#core/messaging/lifecycle";
import { DISPATCH_GRACE_MS } from "#core/messaging/lifecycle";
import { checkReceipt } from "#core/messaging/receipts";
import { changeMessage, dueEntryClaim, dueShards, readMessage, type DueKind } from "#core/messaging/store";
import { maxDelaySeconds, publish } from "#core/queue/messages";
import { PROCESSING_ERROR } from "#core/queue/subscribe";

export interface SweepResult {
  released: number;
  dispatched: number;
  /** No final receipt by the receipt timeout, and the carrier could not say one: Unknown. */
  expired: number;
  /** No final receipt came, but the carrier had one when asked: applied. */
  reconciled: number;
  /** Asked the carrier, nothing final yet: asked again later. */
  rechecked: number;
  /** Hand-offs cut short (claimed, no answer stored) the carrier did not take: queued again for another attempt. */
  resent: number;
  /** Overdue messages past their republish limit, ended Failed (ProcessingError). */
  failed: number;
}

/** Items due this far ahead are handed to SQS with a delay, so a scheduled send leaves on time, not at the next minute. */
const LOOKAHEAD_MS = (maxDelaySeconds - 60) * 1000;

/**
 * The due-work sweep (EventBridge, every minute): reads the messages' due index
 * up to a lookahead and
 * - Release: a far-future scheduled send; queued now when due, or handed to SQS with the remaining delay;
 * - Dispatch: a Pending/Queued message whose queue message is overdue; published again (the consumer is idempotent),
 *   at most SWEEP_ATTEMPTS times (counted on the message), then ended Failed (ProcessingError);
 * - ReceiptTimeout: handed to the provider but no final receipt yet: the carrier is asked (`checkReceipt`);
 *   its final status applied, else asked again later, and `Unknown` at the receipt timeout. A hand-off cut short
 *   (claimed, no provider id) is asked about by our id once its lease has passed: recorded, or sent again.
 * Each item is claimed by a conditional write on its due key, so overlapping sweeps act once.
 * `organizationId` restricts the sweep to one organization (tests that move the clock).
 */
export async function sweepDueMessages(options: { now?: Date; organizationId?: string } = {}): Promise<SweepResult> {
  const now = (options.now ?? new Date()).getTime();
  const result: SweepResult = {
    released: 0,
    dispatched: 0,
    expired: 0,
    failed: 0,
    reconciled: 0,
    rechecked: 0,
    resent: 0,
  };
  const partitions = dueShards.map((shard) => MessageEntity.partitionKey("due", { shard }));
  for await (const { item, seen, dueAt, organizationId, id } of dueEntries(
    partitions,
    new Date(now + LOOKAHEAD_MS).toISOString(),
    options.organizationId,
  )) {
    await handle(
      {
        dueAt: Date.parse(dueAt),
        organizationId,
        messageId: id,
        kind: item.dueKind as DueKind,
        seen,
        sweepAttempts: Number(item.sweepAttempts ?? 0),
      },
      now,
      result,
    );
  }
  return result;
}

type DueItem = {
  dueAt: number;
  organizationId: string;
  messageId: string;
  kind: DueKind;
  seen: string;
  sweepAttempts: number;
};

async function handle(item: DueItem, now: number, result: SweepResult): Promise<void> {
  const { organizationId, messageId } = item;
  const claim = dueEntryClaim(item.seen);
  const send = (delayMs = 0) =>
    publish(MessageSend, organizationId, { messageId }, { delaySeconds: Math.max(0, delayMs) / 1000 });
  const later = (at: number) => ({ at: new Date(at + DISPATCH_GRACE_MS).toISOString(), kind: "Dispatch" as const });

  if (item.kind === "ReceiptTimeout") {
    if (item.dueAt > now) return;
    const outcome = await checkReceipt(organizationId, messageId, item.seen, now);
    if (outcome) result[outcome]++;
    return;
  }
  if (item.kind === "Release" && item.dueAt <= now) {
    const scheduled = await readMessage(organizationId, messageId);
    const queued =
      scheduled &&
      (await MessageLifecycle.move(organizationId, scheduled, {
        from: ["Scheduled"],
        ...claim,
        set: { status: "Queued", queuedAt: new Date(now).toISOString() },
        due: later(now),
      }));
    if (!queued) return;
    result.released++;
    return void (await send());
  }
  if (item.kind === "Release") {
    const moved = await changeMessage(organizationId, messageId, {
      from: ["Scheduled"],
      ...claim,
      set: {},
      due: later(item.dueAt),
    });
    if (!moved) return;
    result.released++;
    return void (await send(item.dueAt - now));
  }
  if (item.dueAt > now) return;
  // Republishes are counted on the message: past the limit it ends Failed instead of looping through the DLQ.
  const attempts = item.sweepAttempts + 1;
  const message = attempts > SWEEP_ATTEMPTS ? await readMessage(organizationId, messageId) : undefined;
  if (message) {
    const ended = await MessageLifecycle.finish(organizationId, message, {
      from: ["Pending", "Scheduled", "Queued"],
      ...claim,
      set: {
        status: "Failed",
        failedAt: new Date(now).toISOString(),
        errorCode: PROCESSING_ERROR,
        statusReason: `${PROCESSING_ERROR}: still not sent after ${SWEEP_ATTEMPTS} republishes by the sweep.`,
      },
      due: null,
    });
    if (ended) result.failed++;
    return;
  }
  const redo = await changeMessage(organizationId, messageId, {
    from: ["Pending", "Scheduled", "Queued"],
    ...claim,
    set: { sweepAttempts: attempts },
    due: later(now),
  });
  if (!redo) return;
  result.dispatched++;
  await send();
}

/** How many times the sweep republishes one message before it ends the message Failed. */
export const SWEEP_ATTEMPTS = 3;
