import { AgentAlerts, type AlertEvent } from "#core/alerts/index";
import { eachStreamRecord } from "#core/queue/stream-records";

/**
 * Table stream (inserted `LeadAssigned`, `LeadOffered` and `MessageReceived` events): the agent the event concerns is told
 * (core/alerts/index.ts). Read again, the SMS is not sent twice (its id comes from the event); an e-mail may be.
 */
export const handler = eachStreamRecord("agentAlerts", async (item) => {
  await AgentAlerts.fromEvent(String(item.organizationId), item as unknown as AlertEvent);
});
