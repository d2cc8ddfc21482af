import type { AttributeValue } from "@aws-sdk/client-dynamodb";
import { unmarshall } from "@aws-sdk/util-dynamodb";
import type { DynamoDBBatchResponse, DynamoDBStreamEvent } from "aws-lambda";

/**
 * A table-stream handler that applies `apply` to each record's new image in order. A failure is logged and reports
 * its record, so the batch resumes there: the records before it are done, the failed one and those after it are read
 * again (`apply` must bear a second reading).
 */
export function eachStreamRecord(
  consumer: string,
  apply: (item: Record<string, unknown>) => Promise<void>,
): (event: DynamoDBStreamEvent) => Promise<DynamoDBBatchResponse> {
  return async (event) => {
    for (const record of event.Records) {
      try {
        await apply(unmarshall((record.dynamodb?.NewImage ?? {}) as Record<string, AttributeValue>));
      } catch (error) {
        console.error(
          JSON.stringify({ level: "error", consumer, message: error instanceof Error ? error.message : String(error) }),
        );
        const failed = record.dynamodb?.SequenceNumber;
        return { batchItemFailures: failed ? [{ itemIdentifier: failed }] : [] };
      }
    }
    return { batchItemFailures: [] };
  };
}
