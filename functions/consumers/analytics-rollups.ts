import type { AttributeValue } from "@aws-sdk/client-dynamodb";
import { unmarshall } from "@aws-sdk/util-dynamodb";
import type { DynamoDBBatchResponse, DynamoDBStreamEvent } from "aws-lambda";
import { countRecordedEvents } from "#core/analytics/aggregator";
import { toEventRecord } from "#core/events/index";

/**
 * Table stream (inserted Event items): counts the batch into the analytics rollups. Counting is idempotent (a marker
 * per fact), so on an error the whole batch is read again from its first record and nothing is counted twice.
 */
export const handler = async (event: DynamoDBStreamEvent): Promise<DynamoDBBatchResponse> => {
  try {
    const recorded = event.Records.map((record) =>
      unmarshall((record.dynamodb?.NewImage ?? {}) as Record<string, AttributeValue>),
    ).map((item) => ({
      organizationId: String(item.organizationId),
      event: toEventRecord(item),
    }));
    await countRecordedEvents(recorded);
    return { batchItemFailures: [] };
  } catch (error) {
    console.error(
      JSON.stringify({
        level: "error",
        consumer: "analyticsRollups",
        message: error instanceof Error ? error.message : String(error),
      }),
    );
    const first = event.Records[0]?.dynamodb?.SequenceNumber;
    return { batchItemFailures: first ? [{ itemIdentifier: first }] : [] };
  }
};
