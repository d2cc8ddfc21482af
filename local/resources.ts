import {
  CreateTableCommand,
  DescribeTableCommand,
  DynamoDBClient,
  ResourceInUseException,
  UpdateTableCommand,
  UpdateTimeToLiveCommand,
  type AttributeDefinition,
  type GlobalSecondaryIndex,
  type Projection,
} from "@aws-sdk/client-dynamodb";
import { CreateQueueCommand, GetQueueAttributesCommand, SQSClient } from "@aws-sdk/client-sqs";
import { environmentNames, queues, streamFailurePolicy, table, type QueueName } from "#stacks/definitions";

/** Fixed credentials for the emulators; neither checks them. */
export const localCredentials = { accessKeyId: "local", secretAccessKey: "local" };
export const localRegion = process.env.AWS_REGION ?? "us-east-1";

/** As deployed (stacks/queues.ts): the longest SQS retention, so dead letters wait for someone to look. */
const deadLetterRetentionSeconds = 14 * 24 * 3600;

export interface LocalQueue {
  url: string;
  arn: string;
  deadLetterUrl: string;
}

export interface LocalResources {
  /** Environment every function reads (TABLE_NAME, queue URLs, emulator endpoints). */
  env: Record<string, string>;
  queues: Record<QueueName, LocalQueue>;
  /** The stream consumers' dead-letter queue (Lambda's on-failure destination in AWS). */
  streamFailuresUrl: string;
}

export function localDynamoDbClient(endpoint: string): DynamoDBClient {
  return new DynamoDBClient({ endpoint, region: localRegion, credentials: localCredentials });
}

export function localSqsClient(endpoint: string): SQSClient {
  return new SQSClient({ endpoint, region: localRegion, credentials: localCredentials });
}

/**
 * Creates the table and every queue (with its DLQ and redrive policy) from
 * `stacks/definitions.ts`, the manifest the SST stacks deploy. Safe to call
 * again: existing resources are kept.
 */
export async function createLocalResources(endpoints: { dynamodb: string; sqs: string }): Promise<LocalResources> {
  const dynamodb = localDynamoDbClient(endpoints.dynamodb);
  const sqsClient = localSqsClient(endpoints.sqs);
  try {
    await createTable(dynamodb);
    const created = {} as Record<QueueName, LocalQueue>;
    for (const name of Object.keys(queues) as QueueName[]) created[name] = await createQueue(sqsClient, name);
    const env: Record<string, string> = {
      [environmentNames.tableName]: table.name,
      [environmentNames.dynamodbEndpoint]: endpoints.dynamodb,
      [environmentNames.sqsEndpoint]: endpoints.sqs,
    };
    for (const [name, queue] of Object.entries(created)) env[queues[name as QueueName].urlEnv] = queue.url;
    const streamFailuresUrl = await createQueueUrl(sqsClient, `${streamFailurePolicy.deadLetterQueue.name}-dlq`, {
      MessageRetentionPeriod: String(deadLetterRetentionSeconds),
    });
    env[streamFailurePolicy.deadLetterQueue.urlEnv] = streamFailuresUrl;
    return { env, queues: created, streamFailuresUrl };
  } finally {
    dynamodb.destroy();
    sqsClient.destroy();
  }
}

function sameProjection(current: Projection | undefined, wanted: Projection | undefined): boolean {
  const attributes = (projection: Projection | undefined) => [...(projection?.NonKeyAttributes ?? [])].sort().join(",");
  return current?.ProjectionType === wanted?.ProjectionType && attributes(current) === attributes(wanted);
}

async function createTable(client: DynamoDBClient): Promise<void> {
  const indexes = Object.entries(table.globalIndexes);
  const keyNames = [
    table.partitionKey,
    table.sortKey,
    ...indexes.flatMap(([, index]) => [index.partitionKey, index.sortKey]),
  ];
  const attributes: AttributeDefinition[] = keyNames.map((name) => ({ AttributeName: name, AttributeType: "S" }));
  const globalIndexes: GlobalSecondaryIndex[] = indexes.map(([name, index]) => ({
    IndexName: name,
    KeySchema: [
      { AttributeName: index.partitionKey, KeyType: "HASH" },
      { AttributeName: index.sortKey, KeyType: "RANGE" },
    ],
    Projection:
      typeof index.projection === "string"
        ? { ProjectionType: index.projection }
        : { ProjectionType: "INCLUDE", NonKeyAttributes: [...index.projection] },
  }));
  try {
    await client.send(
      new CreateTableCommand({
        TableName: table.name,
        BillingMode: "PAY_PER_REQUEST",
        AttributeDefinitions: attributes,
        KeySchema: [
          { AttributeName: table.partitionKey, KeyType: "HASH" },
          { AttributeName: table.sortKey, KeyType: "RANGE" },
        ],
        GlobalSecondaryIndexes: globalIndexes,
        StreamSpecification: { StreamEnabled: true, StreamViewType: table.streamView },
      }),
    );
  } catch (error) {
    if (!(error instanceof ResourceInUseException)) throw error;
    const { Table } = await client.send(new DescribeTableCommand({ TableName: table.name }));
    // A table kept in .local/ from before an index was added gets the manifest's new indexes now (one per update, as DynamoDB requires).
    // An index whose projection changed since (issue 16 made the lists KEYS_ONLY) is dropped and built again.
    const stale = (Table?.GlobalSecondaryIndexes ?? []).filter((current) => {
      const wanted = globalIndexes.find((candidate) => candidate.IndexName === current.IndexName);
      return wanted !== undefined && !sameProjection(current.Projection, wanted.Projection);
    });
    for (const index of stale) {
      await client.send(
        new UpdateTableCommand({
          TableName: table.name,
          GlobalSecondaryIndexUpdates: [{ Delete: { IndexName: index.IndexName } }],
        }),
      );
    }
    const staleNames = new Set(stale.map((index) => index.IndexName));
    const existing = new Set(
      (Table?.GlobalSecondaryIndexes ?? []).map((index) => index.IndexName).filter((name) => !staleNames.has(name)),
    );
    const missing = globalIndexes.filter((candidate) => !existing.has(candidate.IndexName));
    for (const index of missing) {
      const keyAttributes = new Set(index.KeySchema!.map((key) => key.AttributeName));
      await client.send(
        new UpdateTableCommand({
          TableName: table.name,
          AttributeDefinitions: attributes.filter((attribute) => keyAttributes.has(attribute.AttributeName)),
          GlobalSecondaryIndexUpdates: [
            { Create: { IndexName: index.IndexName, KeySchema: index.KeySchema, Projection: index.Projection } },
          ],
        }),
      );
    }
    // Lists query the new indexes at once: wait until DynamoDB Local has built them (seconds).
    for (let attempt = 0; missing.length && attempt < 60; attempt++) {
      const { Table: updated } = await client.send(new DescribeTableCommand({ TableName: table.name }));
      if ((updated?.GlobalSecondaryIndexes ?? []).every((index) => index.IndexStatus === "ACTIVE")) break;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    // A table kept in .local/ from before the stream (or with another view) gets the manifest's stream now.
    const stream = Table?.StreamSpecification;
    if (stream?.StreamEnabled && stream.StreamViewType === table.streamView) return;
    if (stream?.StreamEnabled)
      await client.send(
        new UpdateTableCommand({ TableName: table.name, StreamSpecification: { StreamEnabled: false } }),
      );
    await client.send(
      new UpdateTableCommand({
        TableName: table.name,
        StreamSpecification: { StreamEnabled: true, StreamViewType: table.streamView },
      }),
    );
    return;
  }
  await client.send(
    new UpdateTimeToLiveCommand({
      TableName: table.name,
      TimeToLiveSpecification: { AttributeName: table.ttlAttribute, Enabled: true },
    }),
  );
}

async function createQueue(client: SQSClient, name: QueueName): Promise<LocalQueue> {
  const definition = queues[name];
  const deadLetterUrl = await createQueueUrl(client, `${name}-dlq`, {
    MessageRetentionPeriod: String(deadLetterRetentionSeconds),
  });
  const deadLetterArn = await queueArn(client, deadLetterUrl);
  const url = await createQueueUrl(client, name, {
    VisibilityTimeout: String(definition.visibilityTimeoutSeconds),
    RedrivePolicy: JSON.stringify({ deadLetterTargetArn: deadLetterArn, maxReceiveCount: definition.maxReceiveCount }),
  });
  return { url, arn: await queueArn(client, url), deadLetterUrl };
}

/** Creates (or finds) a queue with the given attributes and returns its URL. */
export async function createQueueUrl(
  client: SQSClient,
  name: string,
  attributes: Record<string, string>,
): Promise<string> {
  const { QueueUrl } = await client.send(new CreateQueueCommand({ QueueName: name, Attributes: attributes }));
  if (!QueueUrl) throw new Error(`CreateQueue ${name} returned no URL`);
  return QueueUrl;
}

export async function queueArn(client: SQSClient, url: string): Promise<string> {
  const { Attributes } = await client.send(
    new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ["QueueArn"] }),
  );
  const arn = Attributes?.QueueArn;
  if (!arn) throw new Error(`Queue ${url} has no ARN`);
  return arn;
}
