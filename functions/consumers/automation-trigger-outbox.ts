import type { AttributeValue } from "@aws-sdk/client-dynamodb";
import { unmarshall } from "@aws-sdk/util-dynamodb";
import type { DynamoDBBatchResponse, DynamoDBStreamEvent } from "aws-lambda";
import { publishTriggersOf } from "#core/automations/runs/trigger-outbox";
import { eventAttributes } from "#core/events/index";

/**
 * Table stream (inserted MessageFailed, MessageUndelivered and CallMissed events): each becomes its automation
 * trigger. On an error the batch resumes from its first record: a trigger published twice starts one run.
 */
export const handler = async (event: DynamoDBStreamEvent): Promise<DynamoDBBatchResponse> => {
  try {
    await publishTriggersOf(
      event.Records.map((record) =>
        // Under their field names: the event's item stores its longer fields under short ones (core/events).
        eventAttributes(unmarshall((record.dynamodb?.NewImage ?? {}) as Record<string, AttributeValue>)),
      ),
    );
    return { batchItemFailures: [] };
  } catch (error) {
    console.error(
      JSON.stringify({
        level: "error",
        consumer: "automationTriggerOutbox",
        message: error instanceof Error ? error.message : String(error),
      }),
    );
    const first = event.Records[0]?.dynamodb?.SequenceNumber;
    return { batchItemFailures: first ? [{ itemIdentifier: first }] : [] };
  }
};
