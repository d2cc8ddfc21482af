import * as v from "valibot";
import { defineMessage } from "#core/queue/messages";

/**
 * A lead was stored (Pending); the intake consumer processes it. The outbox carries the item as inserted (`lead`), so
 * processing need not read it back; the sweep's republish carries only the id.
 */
export const LeadReceived = defineMessage(
  "lead.received",
  "leadIntake",
  v.object({ leadId: v.string(), lead: v.optional(v.record(v.string(), v.unknown())) }),
);

/**
 * A lead was processed; the automation engine starts its LeadCreated triggers. `lead`: the lead as processing and
 * routing just stored it, when they know it (the runs start from it instead of reading it back).
 */
export const LeadCreated = defineMessage(
  "lead.created",
  "automationRuns",
  v.object({
    leadId: v.string(),
    sourceId: v.nullable(v.string()),
    complianceStatus: v.nullable(v.string()),
    lead: v.optional(v.record(v.string(), v.unknown())),
  }),
);

declare module "#core/queue/messages" {
  interface QueueMessages {
    "lead.received": typeof LeadReceived;
    "lead.created": typeof LeadCreated;
  }
}
