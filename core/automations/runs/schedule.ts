import { AutomationScheduled, AutomationStep } from "#core/automations/runs/queue";
import "#core/automations/runs/queue";
import { conditionally, table } from "#core/db/items";
import { dueEntries } from "#core/db/due";
import { AutomationRunEntity, AutomationTriggerEntity } from "#core/db/entities/automations";
import { nextFireAt } from "#core/automations/runs/cron";
import { instantOfWallTime, wallTimeAt } from "#core/messaging/quiet-hours";
import { dueShards, isFinal, RunStore, STALL_MS } from "#core/automations/runs/store";
import { maxDelaySeconds, publish } from "#core/queue/messages";
import { currentOrganization } from "#core/organizations/current";
import { UnreadableItemError } from "#core/errors";

/** Work items ahead of this much are handed to SQS with a delay, so they start on time rather than at the next sweep. */
const LOOKAHEAD_MS = (maxDelaySeconds - 60) * 1000;

/**
 * The zone a due Schedule entry fires in, and where it moves instead of firing now. A cron schedule set in a zone the
 * organization has left (`PUT /organizations/me`) keeps its wall-clock slot: an entry due at 09:00 New York is due at
 * 09:00 Los Angeles, three hours later (`movedTo`: nothing fires now). When the slot's time in the new zone has
 * already passed (a move east), it fires now, late rather than never, and re-arms in the new zone. Interval
 * schedules have no zone.
 */
async function scheduleZone(
  item: Record<string, unknown>,
  organizationId: string,
  dueAt: string,
  now: number,
): Promise<{ timeZone: string; movedTo?: string }> {
  const setIn = String(item.timeZone);
  if ((item.settings as { cron?: string }).cron === undefined) return { timeZone: setIn };
  // Read afresh, not from the 30 s warm read: one small read per cron firing, and a zone changed a moment ago counts.
  const timeZone = (await currentOrganization(organizationId))?.timeZone;
  if (!timeZone || timeZone === setIn) return { timeZone: setIn };
  const slot = instantOfWallTime(wallTimeAt(Date.parse(dueAt), setIn), timeZone);
  return slot > now ? { timeZone, movedTo: new Date(slot).toISOString() } : { timeZone };
}

export interface SweepResult {
  schedulesFired: number;
  runsResumed: number;
  /** Due runs whose item cannot be read (`UnreadableItemError`): logged and passed over (due again a stall later). */
  runsUnreadable: number;
}

/**
 * The automations sweep (EventBridge, every minute): fires due Schedule triggers, and resends the step of runs whose
 * wait ends within the lookahead or whose step stalled. `organizationId` restricts it to one organization (tests).
 */
export async function sweepAutomations(options: { now?: Date; organizationId?: string } = {}): Promise<SweepResult> {
  const now = (options.now ?? new Date()).getTime();
  const result: SweepResult = { schedulesFired: 0, runsResumed: 0, runsUnreadable: 0 };
  const schedules = dueShards.map((shard) => AutomationTriggerEntity.partitionKey("due", { shard }));
  for await (const { item, seen, dueAt, organizationId, ids } of dueEntries(
    schedules,
    new Date(now).toISOString(),
    options.organizationId,
  )) {
    const [automationId = "", triggerId = ""] = ids;
    const zone = await scheduleZone(item, organizationId, dueAt, now);
    // The claim: the entry moves to its next firing only if it is still where it was read (overlapping sweeps fire
    // once). Only Schedule triggers have a due entry.
    const trigger = { organizationId, type: "Schedule", automationId, triggerId };
    const rearm = async (at: string) =>
      (await conditionally(
        table.update(
          AutomationTriggerEntity.update(
            trigger,
            { nextFireAt: at, ...(zone.timeZone !== item.timeZone ? { timeZone: zone.timeZone } : {}) },
            { condition: AutomationTriggerEntity.indexedAt("due", seen) },
          ),
        ),
      )) !== undefined;
    if (zone.movedTo) {
      await rearm(zone.movedTo);
      continue;
    }
    await publish(
      AutomationScheduled,
      organizationId,
      { automationId, triggerId, firedAt: dueAt },
      { id: `schedule:${automationId}:${triggerId}:${dueAt}` },
    );
    const next = new Date(
      nextFireAt(
        item.settings as { cron?: string; intervalMinutes?: number },
        zone.timeZone,
        Math.max(now, Date.parse(dueAt)),
      ),
    ).toISOString();
    if (await rearm(next)) result.schedulesFired++;
  }
  const runs = dueShards.map((shard) => AutomationRunEntity.partitionKey("due", { shard }));
  for await (const { item, seen, dueAt, organizationId, ids } of dueEntries(
    runs,
    new Date(now + LOOKAHEAD_MS).toISOString(),
    options.organizationId,
  )) {
    const [automationId = "", runId = ""] = ids;
    const waiting = item.status === "Waiting";
    if (!waiting && Date.parse(dueAt) > now) continue;
    const resendAt = waiting ? Math.max(now, Date.parse(dueAt)) : now;
    const nextDue = new Date(resendAt + STALL_MS).toISOString();
    // The claim: the entry moves a stall later only if it is still where it was read (overlapping sweeps resend once).
    const claimed = await conditionally(
      table.update(
        AutomationRunEntity.update(
          { organizationId, automationId, id: runId },
          { dueAt: nextDue },
          { condition: AutomationRunEntity.indexedAt("due", seen), enter: { due: { dueAt: nextDue } } },
        ),
      ),
    );
    if (!claimed) continue;
    // One corrupt run must not stop the sweep for every organization and shard after it: it is logged and left (its
    // claim moved it a stall later, so it comes up again, and is logged again, until someone repairs or removes it).
    const run = await RunStore.read(organizationId, automationId, runId).catch((error: unknown) => {
      if (!(error instanceof UnreadableItemError)) throw error;
      result.runsUnreadable++;
      console.error(JSON.stringify({ level: "error", sweep: "automations", organizationId, error: error.message }));
      return undefined;
    });
    if (!run || isFinal(run) || run.cursorSeq < 0) continue;
    await publish(
      AutomationStep,
      organizationId,
      { automationId, runId, seq: run.cursorSeq, attempt: run.cursorAttempt },
      { delaySeconds: (resendAt - now) / 1000 },
    );
    result.runsResumed++;
  }
  return result;
}
