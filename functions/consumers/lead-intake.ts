import * as LeadProcessing from "#core/leads/processing";
import { subscribe } from "#core/queue/subscribe";

/** Processes stored leads (dedupe, suppression, consent, event, automation trigger); see core/leads/processing. */
export const handler = subscribe("leadIntake", {
  "lead.received": {
    handle: (message) => LeadProcessing.process(message.organizationId, message.data.leadId, 0, message.data.lead),
    onPoison: (message, error) => LeadProcessing.abandon(message.organizationId, message.data.leadId, error),
  },
});
