/**
 * Trigger fan-out: a trigger event becomes one run per enabled automation with a matching enabled trigger. Matching
 * automations are found through the trigger index (`AUTOTRIGGER#<type>#…`, written in the same transaction as the
 * automation), then checked against the stored automation itself. Each run's first step runs in the same invocation
 * (`runFirstStep`): this module is the automation-runs consumer's only, which executes steps anyway.
 */
import { logger } from "#core/observability/index";
import { AutomationScheduled } from "#core/automations/runs/queue";
import "#core/automations/runs/queue";
import { findMessage } from "#core/messaging/message-reads";
import type { ScheduleSettings, Trigger, TriggerType } from "#core/automations/definition";
import * as Engine from "#core/automations/runs/engine";
import { type TriggerEvent } from "#core/automations/runs/engine";
import { runFirstStep } from "#core/automations/runs/step";
import { storedAutomation } from "#core/automations/runs/store";
import type { Automation } from "#core/automations/index";
import { AutomationTriggerEntity } from "#core/db/entities/automations";
import { queryAll } from "#core/db/query";
import * as Contacts from "#core/messaging/contacts";
import * as PhoneNumbers from "#core/messaging/phone-numbers";
import { audienceLeadIds } from "#core/leads/audience";
import { envelope, publishAll, type Envelope, type MessageData, type QueueMessages } from "#core/queue/messages";
import "#core/calls/queue";
import "#core/messaging/queue";
import { toLead } from "#core/leads/reads";

/**
 * Automations with an enabled trigger of `type` (from the index, read consistently): each with the copy its entry
 * carries (written in the automation's own transactions), or only its id for an entry written before entries carried
 * one, whose automation is then read.
 */
async function candidates(
  organizationId: string,
  type: TriggerType,
): Promise<{ automationId: string; automation?: Automation }[]> {
  const items = await queryAll(
    AutomationTriggerEntity.query(
      "collection",
      { organizationId, type },
      {
        range: { beginsWith: AutomationTriggerEntity.sortKey("collection", { organizationId, type }) },
        attributes: ["automationId", "automation"],
        consistent: true,
      },
    ),
  );
  const byId = new Map<string, Automation | undefined>();
  for (const item of items) {
    const copy = item.automation as Automation | undefined;
    byId.set(String(item.automationId), copy?.organizationId === organizationId ? copy : undefined);
  }
  return [...byId].map(([automationId, automation]) => ({ automationId, ...(automation ? { automation } : {}) }));
}

/** Starts a run in every enabled automation whose first enabled trigger of `type` accepts the event. */
async function fanOut(
  organizationId: string,
  type: TriggerType,
  event: TriggerEvent,
  accepts: (trigger: Trigger) => boolean,
): Promise<number> {
  const found = await candidates(organizationId, type);
  // Every start settles before the invocation ends, a failed one included: a rejection passed on at once would end
  // the trigger's invocation while another automation's first step still runs under its lease (Lambda freezes it, the
  // redelivered trigger queues that step for the lease's end, and a thawed container could then run its action a
  // second time). Once all have settled, each failure is logged with its automation (the queue's log line names only
  // the error thrown) and the first is thrown, so the trigger is retried.
  const settled = await Promise.allSettled(
    found.map(async (candidate) => {
      const automation = candidate.automation ?? (await storedAutomation(organizationId, candidate.automationId));
      if (!automation?.enabled) return 0;
      const trigger = automation.triggers.find(
        (candidate) => candidate.type === type && candidate.isEnabled && accepts(candidate),
      );
      if (!trigger) return 0;
      const { created } = await Engine.start(automation, trigger, event, { firstStep: runFirstStep });
      return created ? 1 : 0;
    }),
  );
  const failures = settled.flatMap((result, index) =>
    result.status === "rejected" ? [{ automationId: found[index]!.automationId, error: result.reason as Error }] : [],
  );
  for (const { automationId, error } of failures)
    logger.error("an automation's run did not start", { organizationId, automationId, trigger: type, error });
  if (failures[0]) throw failures[0].error;
  return settled.reduce<number>((sum, result) => sum + (result.status === "fulfilled" ? result.value : 0), 0);
}

/**
 * One `automation.scheduled` copy per audience lead, ten per SQS call, so each lead's run starts in its own message
 * (a large audience never runs inside one invocation). The copies' ids and the runs' claims are keyed on (trigger,
 * firing, lead): a redelivered firing publishes them again, and each lead still gets one run.
 */
async function fanOutAudience(
  organizationId: string,
  firing: MessageData<"automation.scheduled">,
  leadIds: string[],
): Promise<void> {
  const { automationId, triggerId, firedAt } = firing;
  await publishAll(
    leadIds.map((leadId) => ({
      envelope: envelope(
        AutomationScheduled,
        organizationId,
        { automationId, triggerId, firedAt, leadId },
        `schedule:${automationId}:${triggerId}:${firedAt}:${leadId}`,
      ),
    })),
  );
}

const within = (ids: readonly string[] | undefined, id: string | null | undefined) =>
  !ids || (id !== null && id !== undefined && ids.includes(id));

async function phoneNumberIdOf(e164: string): Promise<string | undefined> {
  return (await PhoneNumbers.route(e164))?.phoneNumberId;
}

/** How old a `lead.created` message may be for its runs to start from the lead it carries (else they read it). */
export const CARRIED_LEAD_FRESH_MS = 5_000;

/** Trigger messages of the automationRuns queue, by their producers' names. */
export const triggerHandlers = {
  "lead.created": async (message: Envelope<"lead.created">) => {
    const { lead, ...data } = message.data;
    const { leadId, sourceId } = data;
    // The lead as intake stored it, carried by the message: the runs start from it rather than reading it again, while
    // the message is fresh. A copy delivered late (a redelivery after a failed fan-out, a backed-up queue) may carry
    // an assignment or fields changed since, so its runs read the lead.
    const fresh = Date.now() - Date.parse(message.occurredAt) <= CARRIED_LEAD_FRESH_MS;
    const known = lead?.id === leadId && fresh ? toLead(lead) : undefined;
    await fanOut(
      message.organizationId,
      "LeadCreated",
      { id: message.id, type: message.type, leadId, data, ...(known ? { lead: known } : {}) },
      (trigger) => within((trigger.settings as { sourceIds?: string[] }).sourceIds, sourceId),
    );
  },
  "message.received": async (message: Envelope<"message.received">) => {
    const data = message.data;
    const phoneNumberId = await phoneNumberIdOf(data.to);
    const leadId = data.leadId ?? (await Contacts.leadIdByPhone(message.organizationId, data.from)) ?? null;
    await fanOut(
      message.organizationId,
      "MessageReceived",
      { id: message.id, type: message.type, leadId, data: { ...data, phoneNumberId } },
      (trigger) => {
        const settings = trigger.settings as { phoneNumberIds?: string[]; keywords?: string[] };
        const text = data.body.trim().toLowerCase();
        return (
          within(settings.phoneNumberIds, phoneNumberId) &&
          (!settings.keywords || settings.keywords.some((keyword) => keyword.toLowerCase() === text))
        );
      },
    );
  },
  "message.failed": async (message: Envelope<"message.failed">) => {
    const data = message.data;
    const status = data.status === "Undelivered" ? "Undeliverable" : data.status;
    const stored = await findMessage(message.organizationId, data.messageId);
    await fanOut(
      message.organizationId,
      "MessageFailed",
      { id: message.id, type: message.type, leadId: data.leadId, data: { ...data } },
      (trigger) => {
        const settings = trigger.settings as { statuses: string[]; phoneNumberIds?: string[] };
        return settings.statuses.includes(status) && within(settings.phoneNumberIds, stored?.fromPhoneNumberId);
      },
    );
  },
  "call.missed": async (message: Envelope<"call.missed">) => {
    const data = message.data;
    const phoneNumberId = await phoneNumberIdOf(data.to);
    const leadId = data.leadId ?? (await Contacts.leadIdByPhone(message.organizationId, data.from)) ?? null;
    await fanOut(
      message.organizationId,
      "CallMissed",
      { id: message.id, type: message.type, leadId, data: { ...data, phoneNumberId } },
      (trigger) => within((trigger.settings as { phoneNumberIds?: string[] }).phoneNumberIds, phoneNumberId),
    );
  },
  "lead.optedOut": async (message: Envelope<"lead.optedOut">) => {
    const data = message.data;
    const leadId = data.leadId ?? (await Contacts.leadIdByPhone(message.organizationId, data.phoneNumber)) ?? null;
    await fanOut(
      message.organizationId,
      "LeadOptedOut",
      { id: message.id, type: message.type, leadId, data: { ...data } },
      () => true,
    );
  },
  "automation.scheduled": async (message: Envelope<"automation.scheduled">) => {
    const { automationId, triggerId, firedAt, leadId } = message.data;
    const automation = await storedAutomation(message.organizationId, automationId);
    const trigger = automation?.triggers.find(
      (candidate) => candidate.id === triggerId && candidate.type === "Schedule" && candidate.isEnabled,
    );
    if (!automation?.enabled || !trigger) return;
    const audience = (trigger.settings as ScheduleSettings).audience;
    if (leadId || !audience) {
      const id = leadId ? `schedule:${triggerId}:${firedAt}:${leadId}` : `schedule:${triggerId}:${firedAt}`;
      await Engine.start(
        automation,
        trigger,
        { id, type: message.type, leadId: leadId ?? null, data: { firedAt } },
        { firstStep: runFirstStep },
      );
      return;
    }
    await fanOutAudience(
      message.organizationId,
      message.data,
      await audienceLeadIds(message.organizationId, audience, firedAt),
    );
  },
} satisfies { [TType in keyof QueueMessages]?: (message: Envelope<TType>) => Promise<void> };
