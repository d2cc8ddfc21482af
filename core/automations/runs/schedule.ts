import { AutomationScheduled, AutomationStep } from "#core/automations/runs/queue";
import "#core/automations/runs/queue";
import { table, isConditionFailed } from "#core/db/items";
import { nextFireAt } from "#core/automations/runs/cron";
import { instantOfWallTime, wallTimeAt } from "#core/messaging/quiet-hours";
import { dueShards, isFinal, RunStore, shardOf, STALL_MS } from "#core/automations/runs/store";
import { keys } from "#core/db/keys";
import { queryPages } from "#core/db/query";
import { maxDelaySeconds, publish } from "#core/queue/messages";
import { Organizations } from "#core/organizations/index";

/** Work items ahead of this much are handed to SQS with a delay, so they start on time rather than at the next sweep. */
const LOOKAHEAD_MS = (maxDelaySeconds - 60) * 1000;

async function* dueItems(prefix: string, upper: string): AsyncGenerator<Record<string, unknown>> {
  for (const shard of dueShards) {
    for await (const page of queryPages({
      index: "dueWork",
      KeyConditionExpression: "gsi3pk = :pk AND gsi3sk <= :upper",
      ExpressionAttributeValues: { ":pk": `${prefix}#${shard}`, ":upper": upper },
    })) {
      yield* page;
    }
  }
}

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
  const timeZone = (await Organizations.current(organizationId))?.timeZone;
  if (!timeZone || timeZone === setIn) return { timeZone: setIn };
  const slot = instantOfWallTime(wallTimeAt(Date.parse(dueAt), setIn), timeZone);
  return slot > now ? { timeZone, movedTo: new Date(slot).toISOString() } : { timeZone };
}

/** Moves a due entry from `seen` to `next` (the claim: overlapping sweeps act once). */
async function claimDue(
  key: { pk: string; sk: string },
  seen: string,
  nextSk: string,
  extra: Record<string, unknown> = {},
): Promise<boolean> {
  const names = Object.keys(extra);
  try {
    // Names as placeholders: some attributes are DynamoDB reserved words (timeZone).
    await table.update({
      Key: key,
      UpdateExpression: `SET gsi3sk = :next${names.map((_, index) => `, #x${index} = :x${index}`).join("")}`,
      ConditionExpression: "gsi3sk = :seen",
      ...(names.length
        ? { ExpressionAttributeNames: Object.fromEntries(names.map((name, index) => [`#x${index}`, name])) }
        : {}),
      ExpressionAttributeValues: {
        ":next": nextSk,
        ":seen": seen,
        ...Object.fromEntries(names.map((name, index) => [`:x${index}`, extra[name]])),
      },
    });
    return true;
  } catch (error) {
    if (isConditionFailed(error)) return false;
    throw error;
  }
}

export interface SweepResult {
  schedulesFired: number;
  runsResumed: number;
}

/**
 * The automations sweep (EventBridge, every minute): fires due Schedule triggers, and resends the step of runs whose
 * wait ends within the lookahead or whose step stalled. `organizationId` restricts it to one organization (tests).
 */
export async function sweepAutomations(options: { now?: Date; organizationId?: string } = {}): Promise<SweepResult> {
  const now = (options.now ?? new Date()).getTime();
  const result: SweepResult = { schedulesFired: 0, runsResumed: 0 };
  for await (const item of dueItems("DUESCHEDULES", `${new Date(now).toISOString()}#~`)) {
    const [dueAt = "", organizationId = "", automationId = "", triggerId = ""] = String(item.gsi3sk).split("#");
    if (options.organizationId && organizationId !== options.organizationId) continue;
    const zone = await scheduleZone(item, organizationId, dueAt, now);
    const rearm = (at: string) =>
      claimDue(
        { pk: String(item.pk), sk: String(item.sk) },
        String(item.gsi3sk),
        keys.dueSchedule(shardOf(automationId), at, organizationId, automationId, triggerId).gsi3sk,
        { nextFireAt: at, ...(zone.timeZone !== item.timeZone ? { timeZone: zone.timeZone } : {}) },
      );
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
  for await (const item of dueItems("DUERUNS", `${new Date(now + LOOKAHEAD_MS).toISOString()}#~`)) {
    const [dueAt = "", organizationId = "", automationId = "", runId = ""] = String(item.gsi3sk).split("#");
    if (options.organizationId && organizationId !== options.organizationId) continue;
    const waiting = item.status === "Waiting";
    if (!waiting && Date.parse(dueAt) > now) continue;
    const resendAt = waiting ? Math.max(now, Date.parse(dueAt)) : now;
    const nextDue = new Date(resendAt + STALL_MS).toISOString();
    const claimed = await claimDue(
      { pk: String(item.pk), sk: String(item.sk) },
      String(item.gsi3sk),
      keys.dueRun(shardOf(runId), nextDue, organizationId, automationId, runId).gsi3sk,
      { dueAt: nextDue },
    );
    if (!claimed) continue;
    const run = await RunStore.read(organizationId, automationId, runId);
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
