import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from "aws-lambda";
import * as v from "valibot";
import { logger, withCorrelationId } from "#core/observability/index";
import { EnvelopeSchema, type Envelope, type QueueMessageType } from "#core/queue/events";

export type MessageHandler<TType extends QueueMessageType> = (
  message: Envelope<TType>,
  record: SQSRecord,
) => Promise<void>;

export type MessageHandlers = { [TType in QueueMessageType]?: MessageHandler<TType> };

/**
 * Builds a queue consumer: each record is validated and dispatched on its
 * `type`; a record that fails (or cannot be read) is reported in
 * `batchItemFailures` alone, so one bad record never fails its batch. SQS then
 * redelivers it after the visibility timeout and moves it to the DLQ after the
 * queue's maxReceiveCount. Handlers must be idempotent (at-least-once delivery).
 */
export function subscribe(handlers: MessageHandlers, options: { onPoison?: (record: SQSRecord, error: unknown) => Promise<void> } = {}) {
  return async (event: SQSEvent, context?: Context): Promise<SQSBatchResponse> => {
    if (context) logger.addContext(context);
    const failures: SQSBatchResponse["batchItemFailures"] = [];
    await Promise.all(
      event.Records.map(async (record) => {
        const started = Date.now();
        // One log line per record, with what identifies its journey.
        const line: Record<string, unknown> = { messageId: record.messageId, receiveCount: receiveCount(record) };
        try {
          const parsed = v.safeParse(EnvelopeSchema, JSON.parse(record.body));
          if (!parsed.success) throw new Error("The message is not a valid envelope.");
          const message = parsed.output as Envelope;
          const correlationId = message.correlationId ?? message.id;
          Object.assign(line, { type: message.type, organizationId: message.organizationId, correlationId });
          const handler = handlers[message.type as QueueMessageType] as MessageHandler<QueueMessageType> | undefined;
          if (!handler) throw new Error(`No handler for message type ${message.type}.`);
          await withCorrelationId(correlationId, () => handler(message, record));
          logger.info("queue record", { ...line, outcome: "Succeeded", latencyMs: Date.now() - started });
        } catch (error) {
          logger.error("queue record failed", { ...line, outcome: "Failed", latencyMs: Date.now() - started, error: error as Error });
          if (options.onPoison) await options.onPoison(record, error).catch(() => undefined);
          failures.push({ itemIdentifier: record.messageId });
        }
      }),
    );
    return { batchItemFailures: failures };
  };
}

/** How many times SQS has handed this record out (1 on first delivery). */
export function receiveCount(record: SQSRecord): number {
  return Number(record.attributes?.ApproximateReceiveCount ?? "1");
}
