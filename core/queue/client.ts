import { SQSClient } from "@aws-sdk/client-sqs";
import { config } from "#core/config";

let sqsClient: SQSClient | undefined;

/** One SQS client per process, created on first use. */
export function sqs(): SQSClient {
  if (!sqsClient) {
    const endpoint = config.sqsEndpoint;
    sqsClient = new SQSClient(
      endpoint
        ? { endpoint, region: process.env.AWS_REGION ?? "us-east-1", credentials: { accessKeyId: "local", secretAccessKey: "local" } }
        : {},
    );
  }
  return sqsClient;
}
