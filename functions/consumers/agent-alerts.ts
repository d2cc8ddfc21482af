import * as AgentAlerts from "#core/alerts/index";
import { type AlertEvent } from "#core/alerts/index";
import { eventAttributes } from "#core/events/index";
import { eachStreamRecord } from "#core/queue/stream-records";

/**
 * Table stream (inserted `LeadAssigned`, `LeadOffered` and `MessageReceived` events): the agent the event concerns is told
 * (core/alerts/index.ts). Read again, the SMS is not sent twice (its id comes from the event); an e-mail may be.
 */
export const handler = eachStreamRecord("agentAlerts", async (item) => {
  // Under their field names: the event's item stores its longer fields under short ones (core/events).
  await AgentAlerts.fromEvent(String(item.organizationId), eventAttributes(item) as unknown as AlertEvent);
});
