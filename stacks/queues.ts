import { queues as definitions, type QueueName } from "./definitions.ts";
import { resourceName } from "./names.ts";

/** Longest SQS retention, so failed messages wait in the DLQ for someone to look. */
const deadLetterRetentionSeconds = 14 * 24 * 60 * 60;

function createQueue(name: QueueName) {
  const definition = definitions[name];
  const id = resourceName(name);
  const dlq = new sst.aws.Queue(`${id}Dlq`, {
    transform: { queue: { messageRetentionSeconds: deadLetterRetentionSeconds } },
  });
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
