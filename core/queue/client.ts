import { SQSClient } from "@aws-sdk/client-sqs";
import { config, sdkClientOptions } from "#core/config";
import { lazyCountingMiddleware, measuringEnabled } from "#core/observability/measuring";

// The SQS SDK is imported statically, so it is loaded at a function's cold start, only in the functions that can
// publish (tree shaking leaves it out of the others). Loaded on first use instead, a function that publishes on
// every call (an outbox, POST /messages) would pay for it within its first request rather than during init.
let sqsClient: Promise<SQSClient> | undefined;

/** One SQS client per process, created on first use. */
export function sqs(): Promise<SQSClient> {
  sqsClient ??= Promise.resolve(newClient());
  return sqsClient;
}

function newClient(): SQSClient {
  const client = new SQSClient(sdkClientOptions(config.sqsEndpoint));
  if (measuringEnabled())
    client.middlewareStack.add(lazyCountingMiddleware("sqs"), { step: "initialize", name: "countCalls" });
  return client;
}
