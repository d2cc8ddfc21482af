/**
 * Queue messages of calls: `call.place` drives the outbound-calls queue (its
 * consumer is idempotent: the stored call decides); `call.missed` goes to the
 * automationRuns queue as the "call missed" automation trigger.
 */
declare module "#core/queue/events" {
  interface QueueMessages {
    /** Outbound-calls queue: place this Queued call with the provider. */
    "call.place": { callId: string };
    /** An inbound call ended without being answered. */
    "call.missed": { callId: string; leadId: string | null; conversationId: string | null; from: string; to: string; at: string };
  }
}

export {};
