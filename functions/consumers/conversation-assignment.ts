import * as ConversationAssignment from "#core/messaging/conversation-assignment";
import { eachStreamRecord } from "#core/queue/stream-records";

/**
 * Table stream (inserted `LeadAssigned` / `LeadUnassigned` events): each lead's conversation follows its assignment.
 * Applying a record again writes nothing (followLead is idempotent).
 */
export const handler = eachStreamRecord("conversationAssignment", async (item) => {
  if (typeof item.leadId !== "string") return;
  await ConversationAssignment.followLead(String(item.organizationId), {
    leadId: item.leadId,
    at: String(item.createdAt),
  });
});
