import type * as SqsSdk from "@aws-sdk/client-sqs";
import { config } from "#core/config";
import { countingMiddleware, measuringEnabled } from "#core/observability/call-count";

let sdk: Promise<typeof SqsSdk> | undefined;
let sqsClient: Promise<SqsSdk.SQSClient> | undefined;

/**
 * The SQS SDK, loaded on first use: a function that reads and never publishes
 * (most GET routes reach this module through shared code) does not pay for
 * the client at cold start.
 */
export function sqsSdk(): Promise<typeof SqsSdk> {
  return (sdk ??= import("@aws-sdk/client-sqs"));
}

/** One SQS client per process, created on first use. */
export function sqs(): Promise<SqsSdk.SQSClient> {
  sqsClient ??= sqsSdk().then(({ SQSClient }) => {
    const endpoint = config.sqsEndpoint;
    const client = new SQSClient(
      endpoint
        ? {
            endpoint,
            region: process.env.AWS_REGION ?? "us-east-1",
            credentials: { accessKeyId: "local", secretAccessKey: "local" },
          }
        : {},
    );
    if (measuringEnabled())
      client.middlewareStack.add(countingMiddleware("sqs"), { step: "initialize", name: "countCalls" });
    return client;
  });
  return sqsClient;
}
