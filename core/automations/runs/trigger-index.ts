import { type TransactItem } from "#core/db/transact";
import type { Trigger } from "#core/automations/definition";
import type { Automation } from "#core/automations/index";
import { nextFireAt } from "#core/automations/runs/cron";
import { shardOf } from "#core/automations/runs/store";
import { entities, keys } from "#core/db/keys";

function indexEntries(automation: Automation | undefined): Trigger[] {
  if (!automation?.enabled) return [];
  return automation.triggers.filter((trigger) => trigger.isEnabled && trigger.type !== "Manual");
}

/**
 * The trigger-index writes that take an automation from `previous` to `next` (either may be absent): one entry per
 * enabled trigger of an enabled automation; Schedule entries carry their next firing in the due index.
 */
export function triggerIndexWrites(
  organizationId: string,
  previous: Automation | undefined,
  next: Automation | undefined,
  timeZone: string,
  now = Date.now(),
): TransactItem[] {
  const wanted = indexEntries(next);
  const key = (trigger: Trigger, automationId: string) =>
    keys.automationTrigger(organizationId, trigger.type, automationId, trigger.id);
  const wantedKeys = new Set(wanted.map((trigger) => key(trigger, next!.id).sk));
  const deletes = indexEntries(previous)
    .filter((trigger) => !wantedKeys.has(key(trigger, previous!.id).sk))
    .map((trigger) => ({ Delete: { Key: key(trigger, previous!.id) } }));
  const puts = wanted.map((trigger) => {
    const schedule =
      trigger.type === "Schedule" ? new Date(nextFireAt(trigger.settings, timeZone, now)).toISOString() : undefined;
    return {
      Put: {
        Item: {
          ...key(trigger, next!.id),
          ...(schedule ? keys.dueSchedule(shardOf(next!.id), schedule, organizationId, next!.id, trigger.id) : {}),
          entity: entities.automationTrigger,
          automationId: next!.id,
          triggerId: trigger.id,
          type: trigger.type,
          settings: trigger.settings,
          ...(schedule ? { nextFireAt: schedule, timeZone } : {}),
        },
      },
    };
  });
  return [...deletes, ...puts];
}
