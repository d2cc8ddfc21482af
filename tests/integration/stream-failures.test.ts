import { ReceiveMessageCommand, CreateQueueCommand } from "@aws-sdk/client-sqs";
import type { DynamoDBBatchResponse, DynamoDBRecord } from "aws-lambda";
import { describe, expect, it } from "vitest";
import { config } from "#core/config";
import { db, tableName } from "#core/db/client";
import { table } from "#core/db/items";
import { sqs } from "#core/queue/client";
import { newId } from "#core/shared/ids";
import { startStreamPoller, sendStreamFailuresTo, type StreamFailureRecord } from "#local/stream-poller";
import { streamFailurePolicy } from "#stacks/definitions";
import { adminCli } from "#tests/helpers/admin";
import { applyStackEnv } from "#tests/helpers/stack";

/**
 * A poison record must not block its shard (issue 23, finding 1): the local stream poller applies the deployed
 * failure policy (stacks/definitions.ts streamFailurePolicy): the failing batch is halved down to the poison record,
 * retried, then described to the stream DLQ, and the records after it are processed.
 */
describe("a stream consumer's poison record", () => {
  applyStackEnv();
  const admin = adminCli();

  it("reaches the stream DLQ after the policy's retries while the rest of the shard flows on", async () => {
    const organizationId = `org_${newId()}`;
    // An entity no deployed consumer subscribes to, so only this test's poller receives these records.
    const entity = "StreamFailureProbe";
    const item = (name: string, poison = false) => ({
      pk: `${organizationId}#streamProbe#${name}`,
      sk: "probe",
      entity,
      organizationId,
      name,
      ...(poison ? { poison: "yes" } : {}),
    });
    const processed: string[] = [];
    const poisonAttempts: DynamoDBRecord[][] = [];
    const deadLettersUrl = process.env[streamFailurePolicy.deadLetterQueue.urlEnv]!;
    const poller = startStreamPoller({
      endpoint: config.dynamodbEndpoint!,
      dynamodb: db() as never,
      tableName: tableName(),
      records: [{ eventName: "INSERT", entity }],
      batchSize: 100,
      timeoutSeconds: 30,
      retryDelayMs: 50,
      // Like the deployed handlers: successes are done, the first failure is reported and the batch stops there.
      handler: async (event): Promise<DynamoDBBatchResponse> => {
        const mine = event.Records.filter((record) => record.dynamodb?.NewImage?.organizationId?.S === organizationId);
        for (const record of mine) {
          if (record.dynamodb?.NewImage?.poison?.S === "yes") {
            poisonAttempts.push(mine);
            return { batchItemFailures: [{ itemIdentifier: record.dynamodb.SequenceNumber! }] };
          }
          processed.push(record.dynamodb!.NewImage!.name!.S!);
        }
        return { batchItemFailures: [] };
      },
      deadLetters: sendStreamFailuresTo(await sqs(), deadLettersUrl),
    });
    try {
      for (const name of ["before-1", "before-2"]) await table.put({ Item: item(name) });
      await table.put({ Item: item("poison", true) });
      for (const name of ["after-1", "after-2", "after-3"]) await table.put({ Item: item(name) });

      await expect.poll(() => processed, { timeout: 60_000, interval: 100 }).toContain("after-3");
      // Each good record exactly once, in order: the poison one neither repeats the records before it nor holds back those after it.
      expect(processed).toEqual(["before-1", "before-2", "after-1", "after-2", "after-3"]);
      // Halved down to the poison record alone, which is then tried once and retried as often as the policy says.
      const alone = poisonAttempts.filter((batch) => batch.length === 1);
      expect(alone.length).toBeGreaterThanOrEqual(streamFailurePolicy.maximumRetryAttempts);
      const poisonSequence = alone[0]![0]!.dynamodb!.SequenceNumber!;

      let failure: StreamFailureRecord | undefined;
      const described = async () => {
        failure = (await deadLetterDescriptions(deadLettersUrl)).find(
          (body) => body.DDBStreamBatchInfo?.startSequenceNumber === poisonSequence,
        );
        return failure !== undefined;
      };
      await expect.poll(described, { timeout: 30_000, interval: 200 }).toBe(true);
      expect(failure!.requestContext).toMatchObject({
        condition: "RetryAttemptsExhausted",
        approximateInvokeCount: streamFailurePolicy.maximumRetryAttempts + 1,
      });
      expect(failure!.DDBStreamBatchInfo).toMatchObject({ batchSize: 1, endSequenceNumber: poisonSequence });

      // The operator sees it: in status, and in `dlq show` as a stream batch description.
      const status = await admin("status");
      expect(status.output[streamFailurePolicy.deadLetterQueue.name].deadLetters).toBeGreaterThanOrEqual(1);
      const shown = await admin("dlq", "show", streamFailurePolicy.deadLetterQueue.name);
      expect(shown.output.byType["stream batch: RetryAttemptsExhausted"]).toBeGreaterThanOrEqual(1);
      const redrive = await admin("dlq", "redrive", streamFailurePolicy.deadLetterQueue.name);
      expect(redrive.code).toBe(1);
      expect(redrive.error.error).toMatch(/cannot be redriven.*AT_SEQUENCE_NUMBER/);
    } finally {
      await poller.stop();
    }
  });

  it("sends records older than the maximum record age to the DLQ without invoking the consumer", async () => {
    const organizationId = `org_${newId()}`;
    const functionName = `age-probe-${organizationId}`;
    const invoked: DynamoDBRecord[] = [];
    // A queue of its own: the shared stream DLQ may hold more descriptions than one receive returns (a full run's).
    const { QueueUrl: deadLettersUrl } = await (
      await sqs()
    ).send(new CreateQueueCommand({ QueueName: `stream-age-${organizationId}` }));
    if (!deadLettersUrl) throw new Error("no queue URL");
    const poller = startStreamPoller({
      endpoint: config.dynamodbEndpoint!,
      dynamodb: db() as never,
      tableName: tableName(),
      functionName,
      records: [{ eventName: "INSERT", entity: "StreamAgeProbe" }],
      batchSize: 100,
      timeoutSeconds: 30,
      // Every record is already too old (Lambda's minimum is 60 s; a test cannot wait that long for a record to age).
      failurePolicy: { ...streamFailurePolicy, maximumRecordAgeSeconds: 0 },
      handler: async (event) => {
        invoked.push(...event.Records);
        return { batchItemFailures: [] };
      },
      deadLetters: sendStreamFailuresTo(await sqs(), deadLettersUrl),
    });
    try {
      await table.put({
        Item: { pk: `${organizationId}#streamProbe#old`, sk: "probe", entity: "StreamAgeProbe", organizationId },
      });
      const aged = async () =>
        (await deadLetterDescriptions(deadLettersUrl)).some(
          (body) =>
            body.requestContext?.condition === "RecordAgeExceeded" &&
            body.requestContext.functionArn.endsWith(`:function:${functionName}`),
        );
      await expect.poll(aged, { timeout: 30_000, interval: 200 }).toBe(true);
      expect(invoked).toEqual([]);
    } finally {
      await poller.stop();
    }
  });
});

/** The stream DLQ's messages, looked at without consuming them. */
async function deadLetterDescriptions(url: string): Promise<StreamFailureRecord[]> {
  const { Messages = [] } = await (
    await sqs()
  ).send(new ReceiveMessageCommand({ QueueUrl: url, MaxNumberOfMessages: 10, VisibilityTimeout: 0 }));
  return Messages.map((message) => JSON.parse(message.Body ?? "{}") as StreamFailureRecord);
}
