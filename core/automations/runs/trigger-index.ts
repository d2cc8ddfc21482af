import { type TransactItem } from "#core/db/transact";
import type { Trigger } from "#core/automations/definition";
import type { Automation } from "#core/automations/index";
import { nextFireAt } from "#core/automations/runs/cron";
import { AutomationTriggerEntity } from "#core/db/entities/automations";

function indexEntries(automation: Automation | undefined): Trigger[] {
  if (!automation?.enabled) return [];
  return automation.triggers.filter((trigger) => trigger.isEnabled && trigger.type !== "Manual");
}

/**
 * The trigger-index writes that take an automation from `previous` to `next` (either may be absent): one entry per
 * enabled trigger of an enabled automation; Schedule entries carry their next firing, which puts them in the due index.
 */
export function triggerIndexWrites(
  organizationId: string,
  previous: Automation | undefined,
  next: Automation | undefined,
  timeZone: string,
  now = Date.now(),
): TransactItem[] {
  const wanted = indexEntries(next);
  const identity = (trigger: Trigger, automationId: string) => ({
    organizationId,
    type: trigger.type,
    automationId,
    triggerId: trigger.id,
  });
  const wantedKeys = new Set(wanted.map((trigger) => AutomationTriggerEntity.key(identity(trigger, next!.id)).sk));
  const deletes = indexEntries(previous)
    .filter((trigger) => !wantedKeys.has(AutomationTriggerEntity.key(identity(trigger, previous!.id)).sk))
    .map((trigger) => ({ Delete: AutomationTriggerEntity.remove(identity(trigger, previous!.id)) }));
  const puts = wanted.map((trigger) => {
    const schedule =
      trigger.type === "Schedule" ? new Date(nextFireAt(trigger.settings, timeZone, now)).toISOString() : undefined;
    // The entry does not store its organization (its key holds it).
    const put = AutomationTriggerEntity.putAt(identity(trigger, next!.id), {
      automationId: next!.id,
      triggerId: trigger.id,
      type: trigger.type,
      settings: trigger.settings,
      ...(schedule ? { nextFireAt: schedule, timeZone } : {}),
    });
    return { Put: put };
  });
  return [...deletes, ...puts];
}
