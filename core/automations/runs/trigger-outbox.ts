import { CallMissed } from "#core/calls/queue";
import { MessageFailed } from "#core/messaging/queue";
import { withCorrelationId } from "#core/observability/index";
import { publish } from "#core/queue/messages";

/**
 * The automation trigger outbox (stream consumer `automationTriggerOutbox`): a message that ended Failed or
 * Undelivered and a missed call become their `message.failed` / `call.missed` triggers from the event their status
 * change committed in the same transaction, not from the request that made the change: a crash after the commit
 * loses no trigger. Each trigger's id is its kind and subject (`message.failed:<message id>`), and a run is claimed
 * once per trigger id, so a record read twice (a retried batch) starts no second run.
 */
export async function publishTriggersOf(events: readonly Record<string, unknown>[]): Promise<void> {
  await Promise.all(
    events.map((event) => withCorrelationId(String(event.correlationId ?? event.id), () => publishTriggerOf(event))),
  );
}

/** The trigger id of a message's failure or a call's miss: one per subject, whoever publishes it. */
export const triggerId = (type: "message.failed" | "call.missed", subjectId: string) => `${type}:${subjectId}`;

async function publishTriggerOf(event: Record<string, unknown>): Promise<void> {
  const organizationId = String(event.organizationId);
  const subjectId = String(event.relatedEntityId);
  const optional = (name: string) => (typeof event[name] === "string" ? (event[name] as string) : null);
  if (event.eventType === "MessageFailed" || event.eventType === "MessageUndelivered") {
    await publish(
      MessageFailed,
      organizationId,
      {
        messageId: subjectId,
        conversationId: String(event.conversationId),
        leadId: optional("leadId"),
        status: event.eventType === "MessageFailed" ? "Failed" : "Undelivered",
        errorCode: optional("errorCode"),
      },
      { id: triggerId("message.failed", subjectId) },
    );
  } else if (event.eventType === "CallMissed") {
    await publish(
      CallMissed,
      organizationId,
      {
        callId: subjectId,
        leadId: optional("leadId"),
        conversationId: optional("conversationId"),
        from: String(event.fromPhoneNumber),
        to: String(event.toPhoneNumber),
        at: String(event.createdAt),
      },
      { id: triggerId("call.missed", subjectId) },
    );
  }
}
