import * as v from "valibot";
import { defineMessage } from "#core/queue/messages";

/**
 * Messages of the automationRuns queue that the run engine sends itself. The triggers it consumes
 * (`lead.created`, `message.received`, `message.failed`, `call.missed`, `lead.optedOut`) are declared by their
 * producing domains.
 */

/**
 * Execute step `seq` (attempt `attempt`) of a run; stale copies are ignored. `leadId`: the run's lead (it never
 * changes), named when the step will read it, so it is read with the run (issue 27); older copies lack it.
 */
export const AutomationStep = defineMessage(
  "automation.step",
  "automationRuns",
  v.object({
    automationId: v.string(),
    runId: v.string(),
    seq: v.number(),
    attempt: v.number(),
    leadId: v.optional(v.string()),
    /**
     * The message of a send looked at again (the run's effect id): read with the run, so observing it makes no read of
     * its own (issue 27, eighth pass). Older consumers ignore it (the object is not strict).
     */
    messageId: v.optional(v.string()),
  }),
);

/**
 * A Schedule trigger came due (fired by the sweep, in the organization's time zone). With an audience the
 * firing fans out into one copy per matching lead, each naming its `leadId`.
 */
export const AutomationScheduled = defineMessage(
  "automation.scheduled",
  "automationRuns",
  v.object({ automationId: v.string(), triggerId: v.string(), firedAt: v.string(), leadId: v.optional(v.string()) }),
);

/** An automation was disabled or deleted: cancel its unfinished runs. */
export const AutomationDisabled = defineMessage(
  "automation.disabled",
  "automationRuns",
  v.object({ automationId: v.string() }),
);

declare module "#core/queue/messages" {
  interface QueueMessages {
    "automation.step": typeof AutomationStep;
    "automation.scheduled": typeof AutomationScheduled;
    "automation.disabled": typeof AutomationDisabled;
  }
}
