import { queues as definitions, streamFailurePolicy, type QueueName } from "./definitions.ts";
import { resourceName } from "./names.ts";

/** Longest SQS retention, so failed messages wait in the DLQ for someone to look. */
const deadLetterRetentionSeconds = 14 * 24 * 60 * 60;

function deadLetterQueue(name: string) {
  return new sst.aws.Queue(name, { transform: { queue: { messageRetentionSeconds: deadLetterRetentionSeconds } } });
}

function createQueue(name: QueueName) {
  const definition = definitions[name];
  const id = resourceName(name);
  const dlq = deadLetterQueue(`${id}Dlq`);
  const queue = new sst.aws.Queue(`${id}Queue`, {
    visibilityTimeout: `${definition.visibilityTimeoutSeconds} seconds`,
    dlq: { queue: dlq.arn, retry: definition.maxReceiveCount },
  });
  /** Linked by functions that send to this queue: `sqs:SendMessage` (covers batches) only. */
  const send = new sst.Linkable(`${id}Send`, {
    properties: { url: queue.url },
    include: [sst.aws.permission({ actions: ["sqs:SendMessage"], resources: [queue.arn] })],
  });
  return { queue, dlq, send };
}

/** Every queue of the manifest, each with its dead-letter queue and a send-only link. */
export const queues = Object.fromEntries(
  (Object.keys(definitions) as QueueName[]).map((name) => [name, createQueue(name)]),
) as Record<QueueName, ReturnType<typeof createQueue>>;

/**
 * The table-stream consumers' on-failure destination: Lambda sends it the description of a batch that failed every
 * attempt (shard, sequence number range), never the records (they stay readable in the stream for 24 hours).
 */
export const streamFailures = deadLetterQueue(`${resourceName(streamFailurePolicy.deadLetterQueue.name)}Dlq`);
