import { LeadReceived } from "#core/leads/queue";
import { withCorrelationId } from "#core/observability/index";
import { publish } from "#core/queue/messages";

/** A lead as the table's stream shows its insert: enough to queue it. */
export interface StoredLeadImage {
  organizationId: string;
  id: string;
  /** The intake request's correlation id, stored with the lead so its processing joins the request's journey. */
  correlationId?: string;
  /** The whole item as inserted, carried in the message (processing then starts without reading it back). */
  item?: Record<string, unknown>;
}

/**
 * The lead intake outbox (stream consumer `leadIntakeOutbox`): queues each lead
 * inserted Pending for processing. Sends run at once; the answer is the index
 * of the first lead whose message could not be sent (the batch resumes there,
 * and a lead queued twice is processed once), or undefined when all went out.
 */
export async function queueStoredLeads(leads: StoredLeadImage[]): Promise<number | undefined> {
  const sent = await Promise.allSettled(
    leads.map((lead) =>
      withCorrelationId(lead.correlationId ?? lead.id, () =>
        publish(LeadReceived, lead.organizationId, { leadId: lead.id, ...(lead.item ? { lead: lead.item } : {}) }),
      ),
    ),
  );
  const failed = sent.findIndex((outcome) => outcome.status === "rejected");
  if (failed === -1) return undefined;
  const reason = (sent[failed] as PromiseRejectedResult).reason;
  console.error(
    JSON.stringify({
      level: "error",
      consumer: "leadIntakeOutbox",
      leadId: leads[failed]!.id,
      message: reason instanceof Error ? reason.message : String(reason),
    }),
  );
  return failed;
}
