import type { AttributeValue } from "@aws-sdk/client-dynamodb";
import { unmarshall } from "@aws-sdk/util-dynamodb";
import type { DynamoDBBatchResponse, DynamoDBStreamEvent } from "aws-lambda";
import { recordWalletEvents } from "#core/billing/wallet-events";
import * as WebhookFanOut from "#core/webhooks/fan-out";

const image = (value: unknown) => unmarshall((value ?? {}) as Record<string, AttributeValue>);

/**
 * Table stream (inserted Event and Lead items, changed Wallet items): events and new leads become their webhook
 * deliveries; wallet changes become event records (which come back through the stream). On an error the batch
 * resumes from its first record (both steps are idempotent), so nothing is skipped.
 */
export const handler = async (event: DynamoDBStreamEvent): Promise<DynamoDBBatchResponse> => {
  try {
    const inserted = event.Records.filter((record) => record.eventName === "INSERT").map((record) =>
      image(record.dynamodb?.NewImage),
    );
    const walletChanges = event.Records.filter((record) => record.eventName === "MODIFY");
    await WebhookFanOut.fanOut(inserted);
    for (const change of walletChanges)
      await recordWalletEvents(image(change.dynamodb?.OldImage), image(change.dynamodb?.NewImage));
    return { batchItemFailures: [] };
  } catch (error) {
    console.error(
      JSON.stringify({
        level: "error",
        consumer: "webhookFanout",
        message: error instanceof Error ? error.message : String(error),
      }),
    );
    const first = event.Records[0]?.dynamodb?.SequenceNumber;
    return { batchItemFailures: first ? [{ itemIdentifier: first }] : [] };
  }
};
