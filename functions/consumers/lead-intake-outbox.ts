import type { AttributeValue } from "@aws-sdk/client-dynamodb";
import { unmarshall } from "@aws-sdk/util-dynamodb";
import type { DynamoDBBatchResponse, DynamoDBStreamEvent } from "aws-lambda";
import { queueStoredLeads } from "#core/leads/outbox";

/**
 * Table stream (leads inserted Pending): each becomes its `lead.received` message. A failed send reports its record,
 * so the batch resumes there; the leads after it may be queued again, which processing absorbs.
 */
export const handler = async (event: DynamoDBStreamEvent): Promise<DynamoDBBatchResponse> => {
  const leads = event.Records.map((record) =>
    unmarshall((record.dynamodb?.NewImage ?? {}) as Record<string, AttributeValue>),
  ).map((item) => ({
    organizationId: String(item.organizationId),
    id: String(item.id),
    ...(typeof item.correlationId === "string" ? { correlationId: item.correlationId } : {}),
    item,
  }));
  const failed = await queueStoredLeads(leads);
  const record = failed === undefined ? undefined : event.Records[failed]?.dynamodb?.SequenceNumber;
  return { batchItemFailures: record ? [{ itemIdentifier: record }] : [] };
};
