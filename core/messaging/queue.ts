/**
 * Queue messages messaging sends. `message.send` drives the outbound queue
 * (its consumer is idempotent: the message's stored status decides what to do).
 * The others go to the automationRuns queue as automation triggers.
 */
declare module "#core/queue/events" {
  interface QueueMessages {
    /** Outbound queue: look at this message and move it forward (schedule, block, send, retry). */
    "message.send": { messageId: string };
    /** A contact's ordinary inbound message (not a compliance keyword). */
    "message.received": { messageId: string; conversationId: string; leadId: string | null; from: string; to: string; body: string };
    /** An outbound message ended Failed or Undelivered. */
    "message.failed": { messageId: string; conversationId: string; leadId: string | null; status: string; errorCode: string | null };
    /** A contact opted out (STOP family keyword, or the provider said so). */
    "lead.optedOut": { leadId: string | null; phoneNumber: string; keyword: string | null; at: string };
  }
}

export {};
