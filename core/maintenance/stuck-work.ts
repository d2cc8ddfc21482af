import * as Calls from "#core/calls/index";
import * as Messages from "#core/messaging/messages";
import { dueEntries } from "#core/db/due";
import { MessageEntity } from "#core/db/entities/messaging";
import { CallEntity } from "#core/db/entities/calls";
import { LeadEntity } from "#core/db/entities/leads";
import { pendingShards } from "#core/leads/index";
import { sweepAfterMs } from "#core/leads/processing";

/** How much of one kind of work is stuck, and for how long the oldest has been. */
export interface StuckCount {
  count: number;
  /** Seconds past its deadline (or, for leads, since it was received); null when none. */
  oldestAgeSeconds: number | null;
}

export interface StuckWork {
  /** Leads still Pending after the intake sweep's threshold (their queue message was lost or keeps failing). */
  leadsPending: StuckCount;
  /** Messages whose due entry is past (a send not handed over, a receipt never came), by due kind. */
  messagesPastDeadline: StuckCount & { byKind: Record<string, number> };
  /** Calls holding money whose final status is overdue (the call sweeper ends them). */
  callsHoldingMoneyPastDeadline: StuckCount;
}

/**
 * Reads the operator indexes the sweeps read (gsi3, across organizations) for
 * work past its deadline. A healthy stage shows zeros, or counts that the next
 * sweep clears; counts that grow, or an oldest age beyond a few sweep periods,
 * mean a sweep is not running or cannot recover the work.
 */
export async function stuckWork(now = new Date()): Promise<StuckWork> {
  const [leadsPending, messages, callsHoldingMoneyPastDeadline] = await Promise.all([
    countDue(
      Array.from({ length: pendingShards }, (_, shard) => LeadEntity.partitionKey("pending", { shard })),
      new Date(now.getTime() - sweepAfterMs),
      now,
    ),
    countDue(
      Messages.dueShards.map((shard) => MessageEntity.partitionKey("due", { shard })),
      now,
      now,
      (item) => String(item.dueKind ?? "Unknown"),
    ),
    countDue(
      Calls.dueShards.map((shard) => CallEntity.partitionKey("due", { shard })),
      now,
      now,
    ),
  ]);
  const counts = ({ count, oldestAgeSeconds }: StuckCount): StuckCount => ({ count, oldestAgeSeconds });
  return {
    leadsPending: counts(leadsPending),
    messagesPastDeadline: messages,
    callsHoldingMoneyPastDeadline: counts(callsHoldingMoneyPastDeadline),
  };
}

async function countDue(
  partitions: readonly string[],
  upTo: Date,
  now: Date,
  kindOf?: (item: Record<string, unknown>) => string,
): Promise<StuckCount & { byKind: Record<string, number> }> {
  let count = 0;
  let oldest: number | undefined;
  const byKind: Record<string, number> = {};
  for await (const { item, dueAt } of dueEntries(partitions, upTo.toISOString())) {
    count++;
    const at = Date.parse(dueAt);
    if (oldest === undefined || at < oldest) oldest = at;
    if (kindOf) byKind[kindOf(item)] = (byKind[kindOf(item)] ?? 0) + 1;
  }
  return {
    count,
    oldestAgeSeconds: oldest === undefined ? null : Math.max(0, Math.round((now.getTime() - oldest) / 1000)),
    byKind,
  };
}
