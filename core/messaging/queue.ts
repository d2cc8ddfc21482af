import * as v from "valibot";
import { defineMessage } from "#core/queue/messages";

/** Outbound queue: look at this message and move it forward (schedule, block, send, retry). */
export const MessageSend = defineMessage(
  "message.send",
  "outboundMessages",
  v.object({
    messageId: v.string(),
    /**
     * The message's recipient and conversation (they never change once it is accepted), when the publisher knows them:
     * the consumer reads its dispatch's items with the message, in one BatchGetItem (issue 27).
     */
    to: v.optional(v.string()),
    conversationId: v.optional(v.string()),
    /** The message's lead (it never changes either): read in the same BatchGetItem, for quiet hours and opt-out. */
    leadId: v.optional(v.string()),
    /** The send slot already reserved on a sender number (core/messaging/pacing.ts): the message waited in the queue for it. */
    slot: v.optional(
      v.object({ numberId: v.string(), at: v.number(), reason: v.string(), lane: v.optional(v.number()) }),
    ),
  }),
);

/** A contact's ordinary inbound message (not a compliance keyword): automation triggers. */
export const MessageReceived = defineMessage(
  "message.received",
  "automationRuns",
  v.object({
    messageId: v.string(),
    conversationId: v.string(),
    leadId: v.nullable(v.string()),
    from: v.string(),
    to: v.string(),
    body: v.string(),
  }),
);

/** An outbound message ended Failed or Undelivered. */
export const MessageFailed = defineMessage(
  "message.failed",
  "automationRuns",
  v.object({
    messageId: v.string(),
    conversationId: v.string(),
    leadId: v.nullable(v.string()),
    status: v.string(),
    errorCode: v.nullable(v.string()),
  }),
);

/** A contact opted out (STOP family keyword, or the provider said so). */
export const LeadOptedOut = defineMessage(
  "lead.optedOut",
  "automationRuns",
  v.object({
    leadId: v.nullable(v.string()),
    phoneNumber: v.string(),
    keyword: v.nullable(v.string()),
    at: v.string(),
  }),
);

declare module "#core/queue/messages" {
  interface QueueMessages {
    "message.send": typeof MessageSend;
    "message.received": typeof MessageReceived;
    "message.failed": typeof MessageFailed;
    "lead.optedOut": typeof LeadOptedOut;
  }
}
