import type { AttributeValue } from "@aws-sdk/client-dynamodb";
import { unmarshall } from "@aws-sdk/util-dynamodb";
import type { DynamoDBBatchResponse, DynamoDBStreamEvent } from "aws-lambda";
import { ConversationAssignment } from "#core/messaging/conversation-assignment";

/**
 * Table stream (inserted `LeadAssigned` / `LeadUnassigned` events): each lead's conversation follows its assignment.
 * A failure reports its record, so the batch resumes there; the records after it are applied again, which writes
 * nothing (followLead is idempotent).
 */
export const handler = async (event: DynamoDBStreamEvent): Promise<DynamoDBBatchResponse> => {
  for (const record of event.Records) {
    const item = unmarshall((record.dynamodb?.NewImage ?? {}) as Record<string, AttributeValue>);
    if (typeof item.leadId !== "string") continue;
    try {
      await ConversationAssignment.followLead(String(item.organizationId), {
        leadId: item.leadId,
        at: String(item.createdAt),
      });
    } catch (error) {
      console.error(
        JSON.stringify({
          level: "error",
          consumer: "conversationAssignment",
          message: error instanceof Error ? error.message : String(error),
        }),
      );
      const failed = record.dynamodb?.SequenceNumber;
      return { batchItemFailures: failed ? [{ itemIdentifier: failed }] : [] };
    }
  }
  return { batchItemFailures: [] };
};
