import * as v from "valibot";
import { defineMessage } from "#core/queue/messages";

/** A lead was stored (Pending); the intake consumer processes it. */
export const LeadReceived = defineMessage("lead.received", "leadIntake", v.object({ leadId: v.string() }));

/** A lead was processed; the automation engine starts its LeadCreated triggers. */
export const LeadCreated = defineMessage(
  "lead.created",
  "automationRuns",
  v.object({ leadId: v.string(), sourceId: v.nullable(v.string()), complianceStatus: v.nullable(v.string()) }),
);

declare module "#core/queue/messages" {
  interface QueueMessages {
    "lead.received": typeof LeadReceived;
    "lead.created": typeof LeadCreated;
  }
}
