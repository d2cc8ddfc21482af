import * as v from "valibot";
import { defineMessage } from "#core/queue/messages";

/** Outbound-calls queue: place this Queued call with the provider. */
export const CallPlace = defineMessage("call.place", "outboundCalls", v.object({ callId: v.string() }));

/** An inbound call ended without being answered: automation triggers. */
export const CallMissed = defineMessage(
  "call.missed",
  "automationRuns",
  v.object({
    callId: v.string(),
    leadId: v.nullable(v.string()),
    conversationId: v.nullable(v.string()),
    from: v.string(),
    to: v.string(),
    at: v.string(),
  }),
);

declare module "#core/queue/messages" {
  interface QueueMessages {
    "call.place": typeof CallPlace;
    "call.missed": typeof CallMissed;
  }
}
