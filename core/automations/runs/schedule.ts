import { AutomationScheduled, AutomationStep } from "#core/automations/runs/queue";
import "#core/automations/runs/queue";
import { table, isConditionFailed } from "#core/db/items";
import { nextFireAt } from "#core/automations/runs/cron";
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
 * A cron schedule set in a time zone the organization has left (`PUT /organizations/me`): instead of firing at the
 * old zone's time, its next firing is set again in the organization's zone now, from this moment (a firing whose new
 * time has already passed is not made up). Interval schedules have no zone. True when the entry was moved (or moved
 * by an overlapping sweep): nothing fires now.
 */
async function followedTimeZone(
  item: Record<string, unknown>,
  organizationId: string,
  automationId: string,
  triggerId: string,
  now: number,
): Promise<boolean> {
  const settings = item.settings as { cron?: string; intervalMinutes?: number };
  if (settings.cron === undefined) return false;
  // Read afresh, not from the 30 s warm read: one small read per cron firing, and a zone changed a moment ago counts.
  const timeZone = (await Organizations.current(organizationId))?.timeZone;
  if (!timeZone || timeZone === item.timeZone) return false;
  const next = new Date(nextFireAt(settings, timeZone, now)).toISOString();
  const nextKeys = keys.dueSchedule(shardOf(automationId), next, organizationId, automationId, triggerId);
  await claimDue({ pk: String(item.pk), sk: String(item.sk) }, String(item.gsi3sk), nextKeys.gsi3sk, {
    nextFireAt: next,
    timeZone,
  });
  return true;
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
    if (await followedTimeZone(item, organizationId, automationId, triggerId, now)) continue;
    await publish(
      AutomationScheduled,
      organizationId,
      { automationId, triggerId, firedAt: dueAt },
      { id: `schedule:${automationId}:${triggerId}:${dueAt}` },
    );
    const next = new Date(
      nextFireAt(
        item.settings as { cron?: string; intervalMinutes?: number },
        String(item.timeZone),
        Math.max(now, Date.parse(dueAt)),
      ),
    ).toISOString();
    const nextKeys = keys.dueSchedule(shardOf(automationId), next, organizationId, automationId, triggerId);
    if (
      await claimDue({ pk: String(item.pk), sk: String(item.sk) }, String(item.gsi3sk), nextKeys.gsi3sk, {
        nextFireAt: next,
      })
    )
      result.schedulesFired++;
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
