import { LeadProcessing } from "#core/leads/processing";
import { subscribe } from "#core/queue/subscribe";

/** Processes stored leads (dedupe, suppression, consent, event, automation trigger); see core/leads/processing. */
export const handler = subscribe(
  { "lead.received": (message) => LeadProcessing.process(message.organizationId, message.data.leadId) },
  { onPoison: (record, error) => LeadProcessing.onFailure(record, error) },
);
