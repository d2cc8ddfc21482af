import { type TransactItem } from "#core/db/transact";
import type { Trigger } from "#core/automations/definition";
import type { Automation } from "#core/automations/index";
import { nextFireAt } from "#core/automations/runs/cron";
import { AutomationTriggerEntity, AutomationVersionEntity } from "#core/db/entities/automations";
import type { Definition } from "#core/automations/runs/route";

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
  const carried = next && carriedCopyFits(next) ? next : undefined;
  const puts = wanted.map((trigger) => {
    const schedule =
      trigger.type === "Schedule" ? new Date(nextFireAt(trigger.settings, timeZone, now)).toISOString() : undefined;
    // The entry does not store its organization (its key holds it). It carries its automation as this transaction
    // writes it (issue 27, h26): the trigger fan-out starts runs from the entry it queried, with no read of the
    // automation; every change of the automation's definition, state or version rewrites its entries with it.
    const put = AutomationTriggerEntity.putAt(identity(trigger, next!.id), {
      automationId: next!.id,
      triggerId: trigger.id,
      type: trigger.type,
      settings: trigger.settings,
      ...(carried ? { automation: carried } : {}),
      ...(schedule ? { nextFireAt: schedule, timeZone } : {}),
    });
    return { Put: put };
  });
  return [...deletes, ...puts];
}

/**
 * Largest automation (JSON bytes) its trigger entries carry. Each enabled trigger's entry holds a copy, in the same
 * transaction as the automation, its audit entry and its version copies, so a large automation with many triggers
 * would pass DynamoDB's 4 MB transaction limit and could no longer be saved; above this size the entries hold only
 * the id and the fan-out reads the automation (as it does for entries written before they carried copies).
 */
export const carriedAutomationMaxBytes = 8 * 1024;

function carriedCopyFits(automation: Automation): boolean {
  return Buffer.byteLength(JSON.stringify(automation)) <= carriedAutomationMaxBytes;
}

/** The definition a run executes: what of the automation its version fixes. */
export function definitionOf(automation: Automation): Definition {
  return {
    triggers: automation.triggers,
    conditionGroups: automation.conditionGroups,
    actions: automation.actions,
    connections: automation.connections,
  } as Definition;
}

/**
 * The immutable copy of `automation`'s version that its runs execute, written in the automation's own transaction
 * (issue 27: before, the run engine put it at a run's start, a write per run and process). Unconditional: the
 * automation's write is conditioned on its version, so nobody else writes this version, and a copy written again
 * (the previous version's, below) holds the same content.
 */
export function versionWrite(automation: Automation): TransactItem {
  const identity = {
    organizationId: automation.organizationId,
    automationId: automation.id,
    version: automation.version,
  };
  return {
    Put: AutomationVersionEntity.putAt(identity, {
      automationId: automation.id,
      version: automation.version,
      name: automation.name,
      definition: definitionOf(automation),
    }),
  };
}
