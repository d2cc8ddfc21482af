import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CreateTableCommand, DynamoDBClient, PutItemCommand } from "@aws-sdk/client-dynamodb";
import { startDynamoDbLocal, type DynamoDbLocalOptions } from "#local/dynamodb-local";

/**
 * `npm run bench -- dynamodb-local` (issue 16): which DynamoDB Local settings
 * serve `npm start` best. Each setting starts a fresh JVM and is measured on:
 * time until it answers (a developer's wait at `npm start`), then conditional
 * puts at 16 in flight during the first 10 s (a cold JVM: what a developer's
 * first requests meet) and again after 25 s of load (the JIT warmed up). Prints
 * puts per second for each, so the decision in docs/decisions.md rests on
 * figures from this machine.
 */

interface Setting {
  name: string;
  options: DynamoDbLocalOptions;
}

const settings: Setting[] = [
  { name: "disk, fast-start JIT (npm start today)", options: { optimizeFor: "startup" } },
  { name: "disk, full JIT", options: { optimizeFor: "throughput" } },
  { name: "memory, fast-start JIT", options: { inMemory: true, optimizeFor: "startup" } },
  { name: "memory, full JIT (tests and benches)", options: { inMemory: true, optimizeFor: "throughput" } },
];

const inFlight = 16;

async function putsPerSecond(client: DynamoDBClient, table: string, seconds: number, prefix: string): Promise<number> {
  const until = Date.now() + seconds * 1000;
  let done = 0;
  await Promise.all(
    Array.from({ length: inFlight }, async (_, worker) => {
      for (let index = 0; Date.now() < until; index++) {
        await client.send(
          new PutItemCommand({
            TableName: table,
            Item: {
              pk: { S: `ORG#bench#${prefix}` },
              sk: { S: `ITEM#${worker}#${index}` },
              body: { S: "x".repeat(400) },
            },
            ConditionExpression: "attribute_not_exists(pk)",
          }),
        );
        done++;
      }
    }),
  );
  return Math.round(done / seconds);
}

async function measure(setting: Setting): Promise<{ startMs: number; coldPuts: number; warmPuts: number }> {
  const dbPath = await mkdtemp(join(tmpdir(), "ddb-bench-"));
  const started = performance.now();
  const emulator = await startDynamoDbLocal({ ...setting.options, dbPath });
  const startMs = Math.round(performance.now() - started);
  const client = new DynamoDBClient({
    endpoint: emulator.endpoint,
    region: "us-east-1",
    credentials: { accessKeyId: "local", secretAccessKey: "local" },
  });
  try {
    const table = "Bench";
    await client.send(
      new CreateTableCommand({
        TableName: table,
        BillingMode: "PAY_PER_REQUEST",
        AttributeDefinitions: [
          { AttributeName: "pk", AttributeType: "S" },
          { AttributeName: "sk", AttributeType: "S" },
        ],
        KeySchema: [
          { AttributeName: "pk", KeyType: "HASH" },
          { AttributeName: "sk", KeyType: "RANGE" },
        ],
      }),
    );
    const coldPuts = await putsPerSecond(client, table, 10, "cold");
    await putsPerSecond(client, table, 15, "warming");
    const warmPuts = await putsPerSecond(client, table, 10, "warm");
    return { startMs, coldPuts, warmPuts };
  } finally {
    client.destroy();
    await emulator.stop();
    await rm(dbPath, { recursive: true, force: true });
  }
}

export async function dynamodbLocalBench(): Promise<void> {
  console.log(`\nDynamoDB Local settings (${inFlight} conditional puts in flight, 400-byte items)\n`);
  console.log("| Setting | start until it answers | puts/s, first 10 s | puts/s after 25 s of load |");
  console.log("|---|---|---|---|");
  for (const setting of settings) {
    const { startMs, coldPuts, warmPuts } = await measure(setting);
    console.log(`| ${setting.name} | ${(startMs / 1000).toFixed(1)} s | ${coldPuts} | ${warmPuts} |`);
  }
}
