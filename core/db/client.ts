import { DynamoDBClient, GetItemCommand, TransactionConflictException } from "@aws-sdk/client-dynamodb";
import { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import { config, sdkClientOptions } from "#core/config";
import { lazyCountingMiddleware, measuringEnabled } from "#core/observability/measuring";

let documentClient: DynamoDBDocumentClient | undefined;

/** One document client per process, created on first use (keeps cold starts lean). */
export function db(): DynamoDBDocumentClient {
  if (!documentClient) {
    const client = new DynamoDBClient(sdkClientOptions(config.dynamodbEndpoint));
    // Benchmarks only (npm run bench -- cost): count calls, items and capacity. Nothing is added otherwise.
    if (measuringEnabled())
      client.middlewareStack.add(
        lazyCountingMiddleware(
          "dynamodb",
          async (TableName, Key) =>
            (await client.send(new GetItemCommand({ TableName, Key, ConsistentRead: true }))).Item,
        ),
        { step: "initialize", name: "countCalls" },
      );
    client.middlewareStack.add(retryTransactionConflicts, { step: "initialize", name: "retryTransactionConflicts" });
    documentClient = DynamoDBDocumentClient.from(client, {
      marshallOptions: { removeUndefinedValues: true },
    });
  }
  return documentClient;
}

const CONFLICT_ATTEMPTS = 8;

/**
 * A single-item write that meets a transaction in flight on its item is refused with `TransactionConflictException`,
 * which the SDK does not retry. Items written both ways (a conversation: the send's transaction, and an inbound
 * message's or an assignment's plain update) would otherwise fail the request for a race it cannot see. Retried with
 * full-jitter backoff, as `transact` retries its own conflicts (transactions are left to it, and counted once there).
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- an AWS SDK middleware is generic over every command's input and output
export function retryTransactionConflicts(next: (args: any) => Promise<any>, context: { commandName?: string }) {
  if (context.commandName === "TransactWriteItemsCommand") return next;
  return async (args: unknown) => {
    for (let attempt = 1; ; attempt++) {
      try {
        return await next(args);
      } catch (error) {
        if (!(error instanceof TransactionConflictException) || attempt >= CONFLICT_ATTEMPTS) throw error;
        await new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(500, 10 * 2 ** attempt)));
      }
    }
  };
}

export function tableName(): string {
  return config.tableName;
}
