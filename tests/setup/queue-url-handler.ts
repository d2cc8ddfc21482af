import { config } from "#core/config";
import type { QueueName } from "#stacks/definitions";

/**
 * A stand-in Lambda for the queue-grant tests: looks up the URL of the queue its
 * event names, as `publish` does before sending (nothing is sent, so no test
 * message reaches a real consumer).
 */
export async function handler(event: { queue: QueueName }): Promise<string> {
  // A turn of the event loop first: the grant must follow the invocation across awaits.
  await new Promise((resolve) => setTimeout(resolve, 1));
  return config.queueUrl(event.queue);
}
