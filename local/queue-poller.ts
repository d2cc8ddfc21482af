import { createHash } from "node:crypto";
import {
  DeleteMessageBatchCommand,
  ReceiveMessageCommand,
  type Message,
  type MessageAttributeValue,
  type SQSClient,
} from "@aws-sdk/client-sqs";
import type { SQSBatchResponse, SQSEvent, SQSMessageAttributes, SQSRecord } from "aws-lambda";
import { lambdaContext, withTimeout, type LambdaHandler } from "#local/handlers";
import { localRegion } from "#local/resources";

export interface QueuePollerOptions {
  client: SQSClient;
  queueUrl: string;
  queueArn: string;
  handler: LambdaHandler<SQSEvent, SQSBatchResponse | void>;
  batchSize: number;
  /** Lambda timeout of the consumer: a slower invocation counts as failed. */
  timeoutSeconds: number;
  functionName?: string;
  waitTimeSeconds?: number;
  /** Batches in flight at once, at most: the event source's `maximumConcurrency` (default 1). */
  maximumConcurrency?: number;
  log?: (line: string) => void;
}

export interface QueuePoller {
  stop(): Promise<void>;
}

/**
 * Polls a queue the way Lambda's SQS event source does: receive up to `batchSize`
 * messages, invoke the handler with an SQS event, then delete every message not
 * named in `batchItemFailures`. When the handler throws, times out or reports an
 * unknown id, nothing is deleted, so the queue's visibility timeout, receive count
 * and redrive policy decide redelivery and dead-lettering, as in AWS. Like the event source, it runs up to
 * `maximumConcurrency` batches at once (one receive loop each), so consumers meet concurrency locally too.
 */
export function startQueuePoller(options: QueuePollerOptions): QueuePoller {
  const abort = new AbortController();
  const log = options.log ?? (() => undefined);
  const name = options.functionName ?? "consumer";
  const receiveLoop = async () => {
    while (!abort.signal.aborted) {
      try {
        const { Messages } = await options.client.send(
          new ReceiveMessageCommand({
            QueueUrl: options.queueUrl,
            MaxNumberOfMessages: Math.min(options.batchSize, 10),
            WaitTimeSeconds: options.waitTimeSeconds ?? 1,
            MessageSystemAttributeNames: ["All"],
            MessageAttributeNames: ["All"],
          }),
          { abortSignal: abort.signal },
        );
        if (Messages && Messages.length > 0) await deliver(Messages);
      } catch (error) {
        if (abort.signal.aborted) break;
        log(`${name}: receive failed: ${error instanceof Error ? error.message : String(error)}`);
        await new Promise((resolve) => setTimeout(resolve, 1_000));
      }
    }
  };
  const loops = Array.from({ length: options.maximumConcurrency ?? 1 }, receiveLoop);

  async function deliver(messages: Message[]): Promise<void> {
    const records = messages.map((message) => toSqsRecord(message, options.queueArn));
    const context = lambdaContext(name, options.timeoutSeconds * 1000);
    let failedIds: Set<string>;
    try {
      const result = await withTimeout(
        Promise.resolve(options.handler({ Records: records }, context)),
        options.timeoutSeconds * 1000,
        name,
      );
      failedIds = new Set((result?.batchItemFailures ?? []).map((failure) => failure.itemIdentifier));
      const known = new Set(records.map((record) => record.messageId));
      if ([...failedIds].some((id) => !known.has(id))) {
        log(`${name}: batchItemFailures names an unknown message id; the whole batch is retried`);
        return;
      }
    } catch (error) {
      log(`${name} failed (${context.awsRequestId}): ${error instanceof Error ? error.stack : String(error)}`);
      return;
    }
    const done = messages.filter((message) => !failedIds.has(message.MessageId ?? ""));
    if (done.length === 0) return;
    await options.client.send(
      new DeleteMessageBatchCommand({
        QueueUrl: options.queueUrl,
        Entries: done.map((message, index) => ({ Id: String(index), ReceiptHandle: message.ReceiptHandle })),
      }),
    );
  }

  return {
    async stop() {
      abort.abort();
      await Promise.all(loops);
    },
  };
}

/** An SQS message as Lambda hands it to a consumer (`SQSEvent.Records[n]`). */
export function toSqsRecord(message: Message, queueArn: string): SQSRecord {
  const attributes = message.Attributes ?? {};
  const body = message.Body ?? "";
  const record: SQSRecord = {
    messageId: message.MessageId ?? "",
    receiptHandle: message.ReceiptHandle ?? "",
    body,
    attributes: {
      ApproximateReceiveCount: attributes.ApproximateReceiveCount ?? "1",
      SentTimestamp: attributes.SentTimestamp ?? String(Date.now()),
      SenderId: attributes.SenderId ?? "000000000000",
      ApproximateFirstReceiveTimestamp: attributes.ApproximateFirstReceiveTimestamp ?? String(Date.now()),
      ...(attributes.MessageGroupId ? { MessageGroupId: attributes.MessageGroupId } : {}),
      ...(attributes.MessageDeduplicationId ? { MessageDeduplicationId: attributes.MessageDeduplicationId } : {}),
      ...(attributes.SequenceNumber ? { SequenceNumber: attributes.SequenceNumber } : {}),
    },
    messageAttributes: toRecordAttributes(message.MessageAttributes ?? {}),
    md5OfBody: message.MD5OfBody ?? createHash("md5").update(body).digest("hex"),
    eventSource: "aws:sqs",
    eventSourceARN: queueArn,
    awsRegion: queueArn.split(":")[3] || localRegion,
  };
  if (message.MD5OfMessageAttributes) record.md5OfMessageAttributes = message.MD5OfMessageAttributes;
  return record;
}

function toRecordAttributes(attributes: Record<string, MessageAttributeValue>): SQSMessageAttributes {
  const base64 = (value: Uint8Array) => Buffer.from(value).toString("base64");
  return Object.fromEntries(
    Object.entries(attributes).map(([name, value]) => [
      name,
      {
        dataType: value.DataType ?? "String",
        ...(value.StringValue !== undefined ? { stringValue: value.StringValue } : {}),
        ...(value.BinaryValue !== undefined ? { binaryValue: base64(value.BinaryValue) } : {}),
        stringListValues: value.StringListValues ?? [],
        binaryListValues: (value.BinaryListValues ?? []).map(base64),
      },
    ]),
  );
}
