import { consumers, queues as queueDefinitions } from "./definitions.ts";
import { api } from "./api.ts";
import { handlerArgs, withDefaults } from "./functions.ts";
import { queues } from "./queues.ts";

/**
 * One subscriber per manifest consumer, reporting failed records individually
 * (`ReportBatchItemFailures`) so one bad message never fails its whole batch.
 * Lives apart from queues.ts because consumers need the API URL and the API needs the queues.
 */
export const subscribers = consumers.map((consumer) => {
  const definition = queueDefinitions[consumer.queue];
  const args = { ...handlerArgs(consumer), timeout: `${definition.consumerTimeoutSeconds} seconds` as const };
  return queues[consumer.queue].queue.subscribe(withDefaults(args, api.url), {
    batch: { size: definition.batchSize, partialResponses: true },
  });
});
