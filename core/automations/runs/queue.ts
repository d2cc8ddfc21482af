/**
 * Messages of the automationRuns queue that the run engine sends itself. The triggers it consumes
 * (`lead.created`, `message.received`, `message.failed`, `call.missed`, `lead.optedOut`) are declared by their
 * producing domains.
 */
declare module "#core/queue/events" {
  interface QueueMessages {
    /** Execute step `seq` (attempt `attempt`) of a run; stale copies are ignored. */
    "automation.step": { automationId: string; runId: string; seq: number; attempt: number };
    /**
     * A Schedule trigger came due (fired by the sweep, in the organization's time zone). With an audience the
     * firing fans out into one copy per matching lead, each naming its `leadId`.
     */
    "automation.scheduled": { automationId: string; triggerId: string; firedAt: string; leadId?: string };
    /** An automation was disabled or deleted: cancel its unfinished runs. */
    "automation.disabled": { automationId: string };
  }
}

export {};
