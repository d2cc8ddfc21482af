import {
  DeleteMessageBatchCommand,
  GetQueueAttributesCommand,
  GetQueueUrlCommand,
  ReceiveMessageCommand,
  SendMessageBatchCommand,
  type Message,
} from "@aws-sdk/client-sqs";
import { sqs } from "#core/queue/client";

/** Depth of a queue and of its dead-letter queue. */
export interface QueueDepth {
  /** Waiting to be received. */
  visible: number;
  /** Received by a consumer, not yet deleted. */
  inFlight: number;
  /** Sent with a delay that has not passed. */
  delayed: number;
  /** In the dead-letter queue: work that failed every attempt and waits for an operator. */
  deadLetters: number;
}

export interface DeadLetterSummary {
  deadLetters: number;
  /** By envelope `type` (or `unreadable`), over the messages looked at. */
  byType: Record<string, number>;
  /** When the oldest message looked at was first sent to the work queue. */
  oldestSentAt: string | null;
  /** A few of them, as they are (id, type, organization, receives, body). */
  samples: {
    messageId: string;
    type: string;
    organizationId: string | null;
    receiveCount: number;
    sentAt: string | null;
    body: string;
  }[];
}

const numberOf = (attributes: Record<string, string> | undefined, name: string) => Number(attributes?.[name] ?? 0);

async function attributes(
  url: string,
  names: ("All" | "RedrivePolicy" | "QueueArn" | "ApproximateNumberOfMessages")[],
) {
  const { Attributes } = await (
    await sqs()
  ).send(new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: names }));
  return Attributes ?? {};
}

/** The dead-letter queue a work queue redrives to (from its RedrivePolicy). */
export async function deadLetterUrlOf(queueUrl: string): Promise<string> {
  const policy = (await attributes(queueUrl, ["RedrivePolicy"])).RedrivePolicy;
  const arn = policy ? (JSON.parse(policy) as { deadLetterTargetArn?: string }).deadLetterTargetArn : undefined;
  if (!arn) throw new Error(`Queue ${queueUrl} has no dead-letter queue`);
  const [, , , , account, name] = arn.split(":");
  const { QueueUrl } = await (
    await sqs()
  ).send(new GetQueueUrlCommand({ QueueName: name, QueueOwnerAWSAccountId: account }));
  if (!QueueUrl) throw new Error(`No URL for dead-letter queue ${arn}`);
  return QueueUrl;
}

export async function queueDepth(queueUrl: string): Promise<QueueDepth> {
  const [queue, deadLetters] = await Promise.all([
    attributes(queueUrl, ["All"]),
    deadLetterUrlOf(queueUrl).then((url) => attributes(url, ["ApproximateNumberOfMessages"])),
  ]);
  return {
    visible: numberOf(queue, "ApproximateNumberOfMessages"),
    inFlight: numberOf(queue, "ApproximateNumberOfMessagesNotVisible"),
    delayed: numberOf(queue, "ApproximateNumberOfMessagesDelayed"),
    deadLetters: numberOf(deadLetters, "ApproximateNumberOfMessages"),
  };
}

/**
 * Looks at up to `limit` dead letters of a work queue without consuming them:
 * each is received with a visibility timeout of 0, so it stays in the DLQ.
 */
export async function summarizeDeadLetters(queueUrl: string, limit = 50): Promise<DeadLetterSummary> {
  return summarizeDeadLetterQueue(await deadLetterUrlOf(queueUrl), limit);
}

/** Like summarizeDeadLetters, given the dead-letter queue itself (the stream consumers' has no work queue). */
export async function summarizeDeadLetterQueue(url: string, limit = 50): Promise<DeadLetterSummary> {
  // Counted before looking, in flight included: a message being looked at (here or by another operator) is briefly
  // in flight, and nothing else receives from a dead-letter queue.
  const counts = await attributes(url, ["All"]);
  const deadLetters =
    numberOf(counts, "ApproximateNumberOfMessages") + numberOf(counts, "ApproximateNumberOfMessagesNotVisible");
  const seen = new Map<string, Message>();
  for (let attempt = 0; attempt < Math.ceil(limit / 10) + 2 && seen.size < limit; attempt++) {
    const { Messages = [] } = await (
      await sqs()
    ).send(
      new ReceiveMessageCommand({
        QueueUrl: url,
        MaxNumberOfMessages: 10,
        VisibilityTimeout: 0,
        WaitTimeSeconds: 0,
        MessageSystemAttributeNames: ["All"],
      }),
    );
    if (Messages.length === 0) break;
    for (const message of Messages) seen.set(message.MessageId ?? "", message);
  }
  const samples = [...seen.values()].slice(0, limit).map((message) => {
    const envelope = parseEnvelope(message.Body);
    const sent = message.Attributes?.SentTimestamp;
    return {
      messageId: message.MessageId ?? "",
      type:
        envelope?.type ??
        (envelope?.DDBStreamBatchInfo
          ? `stream batch: ${envelope.requestContext?.condition ?? "failed"}`
          : "unreadable"),
      organizationId: envelope?.organizationId ?? null,
      receiveCount: numberOf(message.Attributes, "ApproximateReceiveCount"),
      sentAt: sent ? new Date(Number(sent)).toISOString() : null,
      body: message.Body ?? "",
    };
  });
  const byType: Record<string, number> = {};
  for (const sample of samples) byType[sample.type] = (byType[sample.type] ?? 0) + 1;
  const sentAts = samples
    .map((sample) => sample.sentAt)
    .filter((at): at is string => at !== null)
    .sort();
  return {
    deadLetters,
    byType,
    oldestSentAt: sentAts[0] ?? null,
    samples: samples.slice(0, 10),
  };
}

/**
 * Moves every dead letter of a work queue back to it, the effect of
 * `aws sqs start-message-move-task` (which the local SQS emulator lacks): each
 * batch is sent to the work queue, then deleted from the DLQ, so a crash in
 * between can only duplicate a message (consumers are idempotent), never lose one.
 */
export async function redriveDeadLetters(queueUrl: string): Promise<{ moved: number }> {
  const url = await deadLetterUrlOf(queueUrl);
  let moved = 0;
  for (;;) {
    const { Messages = [] } = await (
      await sqs()
    ).send(
      new ReceiveMessageCommand({
        QueueUrl: url,
        MaxNumberOfMessages: 10,
        VisibilityTimeout: 60,
        WaitTimeSeconds: 1,
        MessageAttributeNames: ["All"],
      }),
    );
    if (Messages.length === 0) return { moved };
    const sent = await (
      await sqs()
    ).send(
      new SendMessageBatchCommand({
        QueueUrl: queueUrl,
        Entries: Messages.map((message, index) => ({
          Id: String(index),
          MessageBody: message.Body ?? "",
          ...(message.MessageAttributes && Object.keys(message.MessageAttributes).length > 0
            ? { MessageAttributes: message.MessageAttributes }
            : {}),
        })),
      }),
    );
    const stored = new Set((sent.Successful ?? []).map((entry) => Number(entry.Id)));
    const done = Messages.filter((_, index) => stored.has(index));
    if (done.length > 0) {
      await (
        await sqs()
      ).send(
        new DeleteMessageBatchCommand({
          QueueUrl: url,
          Entries: done.map((message, index) => ({ Id: String(index), ReceiptHandle: message.ReceiptHandle })),
        }),
      );
    }
    moved += done.length;
    if (sent.Failed?.length)
      throw new Error(`SQS refused ${sent.Failed.length} message(s) while redriving: ${sent.Failed[0]?.Message}`);
  }
}

/** A queue message's envelope, or the description Lambda sends a stream consumer's on-failure destination. */
interface DeadLetterBody {
  type?: string;
  organizationId?: string;
  DDBStreamBatchInfo?: unknown;
  requestContext?: { condition?: string };
}

function parseEnvelope(body: string | undefined): DeadLetterBody | undefined {
  try {
    const parsed = JSON.parse(body ?? "") as unknown;
    return typeof parsed === "object" && parsed !== null ? (parsed as DeadLetterBody) : undefined;
  } catch {
    return undefined;
  }
}
