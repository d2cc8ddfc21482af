import { unmarshall } from "@aws-sdk/util-dynamodb";
import type { AttributeValue } from "@aws-sdk/client-dynamodb";
import type { DynamoDBBatchResponse, DynamoDBStreamEvent } from "aws-lambda";
import { WebhookDeliveries } from "#core/webhooks/deliveries";

/**
 * Table stream (INSERT of Event and Lead items only): each record becomes its webhook deliveries. On an error the
 * batch resumes from the first record (fan-out is idempotent), so no event is skipped.
 */
export const handler = async (event: DynamoDBStreamEvent): Promise<DynamoDBBatchResponse> => {
  const items = event.Records.map((record) => unmarshall((record.dynamodb?.NewImage ?? {}) as Record<string, AttributeValue>));
  try {
    await WebhookDeliveries.fanOut(items);
    return { batchItemFailures: [] };
  } catch (error) {
    console.error(JSON.stringify({ level: "error", consumer: "webhookFanout", message: error instanceof Error ? error.message : String(error) }));
    const first = event.Records[0]?.dynamodb?.SequenceNumber;
    return { batchItemFailures: first ? [{ itemIdentifier: first }] : [] };
  }
};
