import { Readable } from "node:stream";
import {
  DynamoDBClient,
  TransactionConflictException,
  TransactWriteItemsCommand,
  UpdateItemCommand,
} from "@aws-sdk/client-dynamodb";
import { describe, expect, it } from "vitest";
import { retryTransactionConflicts } from "#core/db/client";

/**
 * A DynamoDB endpoint answering the first `conflicts` requests with DynamoDB's TransactionConflictException, then
 * success: the real SDK stack (serialization, its own retries, error parsing) runs around our middleware.
 */
function clientMeeting(conflicts: number) {
  const targets: string[] = [];
  const client = new DynamoDBClient({
    region: "us-east-1",
    endpoint: "http://dynamodb.invalid",
    credentials: { accessKeyId: "test", secretAccessKey: "test" },
    maxAttempts: 1,
    requestHandler: {
      handle: async (request: { headers: Record<string, string> }) => {
        targets.push(String(request.headers["x-amz-target"]));
        const conflict = targets.length <= conflicts;
        const body = conflict
          ? { __type: "com.amazonaws.dynamodb.v20120810#TransactionConflictException", message: "in flight" }
          : {};
        return {
          response: {
            statusCode: conflict ? 400 : 200,
            headers: { "content-type": "application/x-amz-json-1.0" },
            body: Readable.from([Buffer.from(JSON.stringify(body))]),
          },
        };
      },
    },
  });
  client.middlewareStack.add(retryTransactionConflicts, { step: "initialize", name: "retryTransactionConflicts" });
  return { client, targets };
}

const update = new UpdateItemCommand({
  TableName: "t",
  Key: { pk: { S: "ORG#o#CONVERSATION#c" }, sk: { S: "CONVERSATION" } },
  UpdateExpression: "SET #u = :u",
  ExpressionAttributeNames: { "#u": "unread" },
  ExpressionAttributeValues: { ":u": { BOOL: true } },
});

describe("a single-item write that meets a transaction in flight on its item", () => {
  it("is retried until the transaction has let go of the item, and then succeeds", async () => {
    const { client, targets } = clientMeeting(3);
    await expect(client.send(update)).resolves.toBeDefined();
    expect(targets).toEqual(Array(4).fill("DynamoDB_20120810.UpdateItem"));
  });

  it("gives up after a bounded number of attempts, with DynamoDB's own error", async () => {
    const { client, targets } = clientMeeting(Number.POSITIVE_INFINITY);
    await expect(client.send(update)).rejects.toBeInstanceOf(TransactionConflictException);
    expect(targets.length).toBe(8);
  });

  it("leaves a transaction's conflicts to `transact`, which retries them itself", async () => {
    const { client, targets } = clientMeeting(1);
    const transaction = new TransactWriteItemsCommand({
      TransactItems: [{ Update: { ...update.input, TableName: "t", UpdateExpression: "SET #u = :u" } as never }],
    });
    await expect(client.send(transaction)).rejects.toBeInstanceOf(TransactionConflictException);
    expect(targets).toEqual(["DynamoDB_20120810.TransactWriteItems"]);
  });
});
