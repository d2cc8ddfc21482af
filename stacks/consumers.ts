import { consumers, queues as queueDefinitions, type ConsumerDefinition } from "./definitions.ts";
import { api } from "./api.ts";
import { handlerArgs, withDefaults } from "./functions.ts";
import { queues } from "./queues.ts";

/**
 * Subscribes a consumer to its queue, reporting failed records individually
 * (`ReportBatchItemFailures`) so one bad message never fails its whole batch.
 * Lives apart from queues.ts because consumers need the API URL and the API needs the queues.
 */
export function subscribe(consumer: ConsumerDefinition) {
  const definition = queueDefinitions[consumer.queue];
  const args = { ...handlerArgs(consumer), timeout: `${definition.consumerTimeoutSeconds} seconds` as const };
  return queues[consumer.queue].queue.subscribe(withDefaults(args, api.url), {
    batch: { size: definition.batchSize, window: `${definition.batchingWindowSeconds} seconds`, partialResponses: true },
    transform: { eventSourceMapping: { scalingConfig: { maximumConcurrency: definition.maximumConcurrency } } },
  });
}

/** One subscriber per consumer of the manifest. */
export const subscribers = consumers.map(subscribe);
