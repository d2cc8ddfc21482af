import {
  consumers,
  queues as queueDefinitions,
  streamConsumers,
  streamFailurePolicy,
  type ConsumerDefinition,
  type StreamConsumerDefinition,
} from "./definitions.ts";
import { api } from "./api.ts";
import { handlerArgs, withDefaults } from "./functions.ts";
import { queues, streamFailures } from "./queues.ts";
import { resourceName } from "./names.ts";
import { table } from "./table.ts";

/**
 * Subscribes a consumer to its queue, reporting failed records individually
 * (`ReportBatchItemFailures`) so one bad message never fails its whole batch.
 * Lives apart from queues.ts because consumers need the API URL and the API needs the queues.
 */
export function subscribe(consumer: ConsumerDefinition) {
  const definition = queueDefinitions[consumer.queue];
  const args = { ...handlerArgs(consumer), timeout: `${definition.consumerTimeoutSeconds} seconds` as const };
  return queues[consumer.queue].queue.subscribe(withDefaults(args, api.url), {
    batch: {
      size: definition.batchSize,
      window: `${definition.batchingWindowSeconds} seconds`,
      partialResponses: true,
    },
    transform: { eventSourceMapping: { scalingConfig: { maximumConcurrency: definition.maximumConcurrency } } },
  });
}

/** One subscriber per consumer of the manifest. */
export const subscribers = consumers.map(subscribe);

/**
 * Subscribes a function to the table's stream, receiving only the changes it names (event name and entity, Lambda
 * event filtering), with failed records reported individually so the batch resumes from the first failure, and
 * the manifest's failure policy: bisect, bounded retries and record age, then the batch's description to the
 * stream DLQ (which the function's role may send to: Lambda sends it with that role) and the shard moves on.
 */
export function subscribeToStream(consumer: StreamConsumerDefinition) {
  const handler = handlerArgs(consumer);
  const args = {
    ...handler,
    timeout: `${consumer.timeoutSeconds} seconds` as const,
    // Its own grants (a consumer that sends mail) and the failure destination's.
    permissions: [
      ...((handler.permissions as sst.aws.FunctionPermissionArgs[] | undefined) ?? []),
      { actions: ["sqs:SendMessage"], resources: [streamFailures.arn] },
    ],
  };
  return table.subscribe(resourceName(consumer.name), withDefaults(args, api.url), {
    filters: consumer.records.map(({ eventName, entity, where = {} }) => ({
      eventName: [eventName],
      dynamodb: {
        NewImage: {
          entity: { S: [entity] },
          ...Object.fromEntries(Object.entries(where).map(([name, value]) => [name, { S: [value] }])),
        },
      },
    })),
    transform: {
      eventSourceMapping: {
        batchSize: consumer.batchSize,
        ...(consumer.batchingWindowSeconds ? { maximumBatchingWindowInSeconds: consumer.batchingWindowSeconds } : {}),
        startingPosition: "TRIM_HORIZON",
        functionResponseTypes: ["ReportBatchItemFailures"],
        maximumRetryAttempts: streamFailurePolicy.maximumRetryAttempts,
        maximumRecordAgeInSeconds: streamFailurePolicy.maximumRecordAgeSeconds,
        bisectBatchOnFunctionError: streamFailurePolicy.bisectBatchOnFunctionError,
        destinationConfig: { onFailure: { destinationArn: streamFailures.arn } },
      },
    },
  });
}

/** One stream subscriber per stream consumer of the manifest. */
export const streamSubscribers = streamConsumers.map(subscribeToStream);
