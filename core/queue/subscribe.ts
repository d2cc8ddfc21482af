import { ChangeMessageVisibilityCommand, GetQueueUrlCommand } from "@aws-sdk/client-sqs";
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from "aws-lambda";
import * as v from "valibot";
import { logger, withCorrelationId } from "#core/observability/index";
import { sqs } from "#core/queue/client";
import {
  EnvelopeSchema,
  messageDefinition,
  type Envelope,
  type QueueMessageType,
  type QueueOfMessage,
} from "#core/queue/messages";
import { queues, type QueueName } from "#stacks/definitions";

export type MessageHandler<TType extends QueueMessageType> = (
  message: Envelope<TType>,
  record: SQSRecord,
) => Promise<void>;

/**
 * Called once, on the last receive of a message whose handling failed (SQS then
 * moves it to the DLQ): ends the item the message was about in a final status
 * with a reason (`Failed`, `ProcessingError`) and records its event, so nothing
 * waits forever on a message that will never be handled. Must be idempotent.
 */
export type PoisonHandler<TType extends QueueMessageType> = (message: Envelope<TType>, error: unknown) => Promise<void>;

/** A message type's handler, and what ends its item when the handler keeps failing. */
export type Subscription<TType extends QueueMessageType> =
  MessageHandler<TType> | { handle: MessageHandler<TType>; onPoison: PoisonHandler<TType> };

/** The handlers of one queue's consumer: only message types declared for that queue (another's is a type error). */
export type MessageHandlers<TQueue extends QueueName = QueueName> = {
  [TType in QueueMessageType as TQueue extends QueueOfMessage<TType> ? TType : never]?: Subscription<TType>;
};

/** The reason an item ends with when its queue message was poison. */
export const PROCESSING_ERROR = "ProcessingError";

/**
 * Builds the consumer of `queue`: each record is validated and dispatched on
 * its `type`; a record that fails (or cannot be read) is reported in
 * `batchItemFailures` alone, so one bad record never fails its batch. The
 * shared poison policy of every consumer:
 * - a failed attempt comes back after a short exponential backoff (1 s, 2 s,
 *   4 s... capped at the visibility timeout), through ChangeMessageVisibility;
 * - the last attempt (`ApproximateReceiveCount` ≥ the queue's maxReceiveCount
 *   in stacks/definitions.ts) runs the type's `onPoison` hook, then releases
 *   the message at once so SQS moves it to the DLQ.
 * Handlers must be idempotent (at-least-once delivery).
 */
export function subscribe<TQueue extends QueueName>(queue: TQueue, handlers: MessageHandlers<TQueue>) {
  const { maxReceiveCount, visibilityTimeoutSeconds } = queues[queue];
  // Checked once, at cold start: every handled type is declared, for this queue (its schema validates each record).
  for (const type of Object.keys(handlers)) {
    const declared = messageDefinition(type);
    if (!declared)
      throw new Error(`Message type ${type} has no declaration (defineMessage) loaded by the ${queue} consumer.`);
    if (declared.queue !== queue) throw new Error(`Message type ${type} travels on ${declared.queue}, not ${queue}.`);
  }
  const handlerOf = (type: string) => (handlers as Record<string, Subscription<QueueMessageType> | undefined>)[type];
  const consume = async (event: SQSEvent, context?: Context): Promise<SQSBatchResponse> => {
    if (context) logger.addContext(context);
    const failures: SQSBatchResponse["batchItemFailures"] = [];
    await Promise.all(
      event.Records.map(async (record) => {
        const started = Date.now();
        const attempt = receiveCount(record);
        // One log line per record, with what identifies its journey.
        const line: Record<string, unknown> = { queue, messageId: record.messageId, receiveCount: attempt };
        let message: Envelope | undefined;
        try {
          const parsed = v.safeParse(EnvelopeSchema, JSON.parse(record.body));
          if (!parsed.success) throw new Error("The message is not a valid envelope.");
          const correlationId = parsed.output.correlationId ?? parsed.output.id;
          Object.assign(line, {
            type: parsed.output.type,
            organizationId: parsed.output.organizationId,
            correlationId,
          });
          const subscription = handlerOf(parsed.output.type);
          if (!subscription) throw new Error(`No handler for message type ${parsed.output.type}.`);
          // The data as its declaration states it; a payload that does not match is a failed record (then poison).
          const data = v.safeParse(messageDefinition(parsed.output.type)!.schema, parsed.output.data);
          if (!data.success) throw new Error(`Invalid ${parsed.output.type} data: ${v.summarize(data.issues)}`);
          message = { ...parsed.output, data: data.output } as Envelope;
          const handle = typeof subscription === "function" ? subscription : subscription.handle;
          const received = message;
          await withCorrelationId(correlationId, () => handle(received, record));
          logger.info("queue record", { ...line, outcome: "Succeeded", latencyMs: Date.now() - started });
        } catch (error) {
          const last = attempt >= maxReceiveCount;
          logger.error("queue record failed", {
            ...line,
            outcome: "Failed",
            poison: last,
            latencyMs: Date.now() - started,
            error: error as Error,
          });
          const subscription = message ? handlerOf(message.type) : undefined;
          if (last && message && subscription && typeof subscription !== "function") {
            const poisoned = message;
            // What the hook records (the item's final event) belongs to the same journey.
            await withCorrelationId(poisoned.correlationId ?? poisoned.id, () =>
              subscription.onPoison(poisoned, error),
            ).catch((hookError: unknown) => logger.error("onPoison failed", { ...line, error: hookError as Error }));
          }
          await delayRetry(record, last ? 0 : Math.min(2 ** (attempt - 1), visibilityTimeoutSeconds));
          failures.push({ itemIdentifier: record.messageId });
        }
      }),
    );
    return { batchItemFailures: failures };
  };
  // What the consumer serves, for the check that every declared message type has one (tests/unit/queue-messages).
  return Object.assign(consume, { queue, messageTypes: Object.keys(handlers) as QueueMessageType[] });
}

/** How many times SQS has handed this record out (1 on first delivery). */
export function receiveCount(record: SQSRecord): number {
  return Number(record.attributes?.ApproximateReceiveCount ?? "1");
}

const queueUrls = new Map<string, Promise<string>>();

/** Shortens the message's invisibility so the next attempt comes after `seconds` (SQS keeps counting receives). */
async function delayRetry(record: SQSRecord, seconds: number): Promise<void> {
  const [, , , , account, name] = (record.eventSourceARN ?? "").split(":");
  if (!name) return;
  let url = queueUrls.get(record.eventSourceARN);
  if (!url) {
    url = sqs()
      .then((client) => client.send(new GetQueueUrlCommand({ QueueName: name, QueueOwnerAWSAccountId: account })))
      .then((result) => result.QueueUrl ?? Promise.reject(new Error("no queue URL")));
    queueUrls.set(record.eventSourceARN, url);
    url.catch(() => queueUrls.delete(record.eventSourceARN));
  }
  await (
    await sqs()
  )
    .send(
      new ChangeMessageVisibilityCommand({
        QueueUrl: await url,
        ReceiptHandle: record.receiptHandle,
        VisibilityTimeout: seconds,
      }),
    )
    .catch(() => undefined);
}
