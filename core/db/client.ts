import { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import { config } from "#core/config";

let documentClient: DynamoDBDocumentClient | undefined;

/** One document client per process, created on first use (keeps cold starts lean). */
export function db(): DynamoDBDocumentClient {
  if (!documentClient) {
    const endpoint = config.dynamodbEndpoint;
    const client = new DynamoDBClient(
      endpoint
        ? { endpoint, region: process.env.AWS_REGION ?? "us-east-1", credentials: { accessKeyId: "local", secretAccessKey: "local" } }
        : {},
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
