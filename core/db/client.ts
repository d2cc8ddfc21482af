import { DynamoDBClient, GetItemCommand } from "@aws-sdk/client-dynamodb";
import { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import { config } from "#core/config";
import { countingMiddleware, measuringEnabled } from "#core/observability/call-count";

let documentClient: DynamoDBDocumentClient | undefined;

/** One document client per process, created on first use (keeps cold starts lean). */
export function db(): DynamoDBDocumentClient {
  if (!documentClient) {
    const endpoint = config.dynamodbEndpoint;
    const client = new DynamoDBClient(
      endpoint
        ? {
            endpoint,
            region: process.env.AWS_REGION ?? "us-east-1",
            credentials: { accessKeyId: "local", secretAccessKey: "local" },
          }
        : {},
    );
    // Benchmarks only (npm run bench -- cost): count calls, items and capacity. Nothing is added otherwise.
    if (measuringEnabled())
      client.middlewareStack.add(
        countingMiddleware(
          "dynamodb",
          async (TableName, Key) =>
            (await client.send(new GetItemCommand({ TableName, Key, ConsistentRead: true }))).Item,
        ),
        { step: "initialize", name: "countCalls" },
      );
    documentClient = DynamoDBDocumentClient.from(client, {
      marshallOptions: { removeUndefinedValues: true },
    });
  }
  return documentClient;
}

export function tableName(): string {
  return config.tableName;
}
