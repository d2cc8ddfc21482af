import type { SQSBatchResponse, SQSEvent, SQSRecord } from "aws-lambda";
import * as v from "valibot";
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
  return async (event: SQSEvent): Promise<SQSBatchResponse> => {
    const failures: SQSBatchResponse["batchItemFailures"] = [];
    await Promise.all(
      event.Records.map(async (record) => {
        try {
          const parsed = v.safeParse(EnvelopeSchema, JSON.parse(record.body));
          if (!parsed.success) throw new Error("The message is not a valid envelope.");
          const message = parsed.output as Envelope;
          const handler = handlers[message.type as QueueMessageType] as MessageHandler<QueueMessageType> | undefined;
          if (!handler) throw new Error(`No handler for message type ${message.type}.`);
          await handler(message, record);
        } catch (error) {
          console.error(
            JSON.stringify({
              level: "error",
              messageId: record.messageId,
              receiveCount: record.attributes?.ApproximateReceiveCount,
              message: error instanceof Error ? error.message : String(error),
              stack: error instanceof Error ? error.stack : undefined,
            }),
          );
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
