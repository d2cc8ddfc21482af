import { DescribeTableCommand, type DynamoDBClient } from "@aws-sdk/client-dynamodb";
import {
  DescribeStreamCommand,
  DynamoDBStreamsClient,
  GetRecordsCommand,
  GetShardIteratorCommand,
  type _Record as StreamRecord,
} from "@aws-sdk/client-dynamodb-streams";
import type { DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from "aws-lambda";
import { lambdaContext, withTimeout, type LambdaHandler } from "#local/handlers";
import { localCredentials, localRegion } from "#local/resources";

export interface StreamPollerOptions {
  endpoint: string;
  dynamodb: DynamoDBClient;
  tableName: string;
  /** The records it receives: stream event name and the new image's `entity` (the deployed filter). */
  records: readonly { eventName: string; entity: string; where?: Readonly<Record<string, string>> }[];
  handler: LambdaHandler<DynamoDBStreamEvent, DynamoDBBatchResponse | void>;
  batchSize: number;
  /** Lambda's MaximumBatchingWindowInSeconds, in ms: records are gathered this long (from the first) unless a batch fills. */
  batchingWindowMs?: number;
  timeoutSeconds: number;
  functionName?: string;
  /** Pause when a pass over every shard found nothing. */
  idleMs?: number;
  log?: (line: string) => void;
}

/**
 * Reads the table's stream the way Lambda's DynamoDB event source does: every shard from its oldest record,
 * records filtered on event name and `entity` as the deployed filter does, batches of `batchSize` gathered for up to
 * the batching window, and on a failure
 * (thrown, timed out, or `batchItemFailures`) the same shard is read again from the first failed record.
 */
export function startStreamPoller(options: StreamPollerOptions): { stop(): Promise<void> } {
  const client = new DynamoDBStreamsClient({ endpoint: options.endpoint, region: localRegion, credentials: localCredentials });
  const log = options.log ?? (() => undefined);
  const name = options.functionName ?? "stream-consumer";
  let stopped = false;
  /** Shard id → the iterator to read next (absent once the shard is closed and drained). */
  const iterators = new Map<string, string | undefined>();
  /** Shard id → when the records now waiting for the batching window were first seen. */
  const gatheringSince = new Map<string, number>();

  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  async function discoverShards(streamArn: string): Promise<void> {
    const { StreamDescription } = await client.send(new DescribeStreamCommand({ StreamArn: streamArn }));
    for (const shard of StreamDescription?.Shards ?? []) {
      if (!shard.ShardId || iterators.has(shard.ShardId)) continue;
      const { ShardIterator } = await client.send(
        new GetShardIteratorCommand({ StreamArn: streamArn, ShardId: shard.ShardId, ShardIteratorType: "TRIM_HORIZON" }),
      );
      iterators.set(shard.ShardId, ShardIterator);
    }
  }

  async function readShard(streamArn: string, shardId: string): Promise<number> {
    const iterator = iterators.get(shardId);
    if (!iterator) return 0;
    const { Records = [], NextShardIterator } = await client.send(new GetRecordsCommand({ ShardIterator: iterator, Limit: 1000 }));
    const wanted = Records.filter((record) =>
      options.records.some(
        (filter) =>
          filter.eventName === record.eventName &&
          filter.entity === record.dynamodb?.NewImage?.entity?.S &&
          Object.entries(filter.where ?? {}).every(([name, value]) => record.dynamodb?.NewImage?.[name]?.S === value),
      ),
    );
    if (options.batchingWindowMs && wanted.length > 0 && wanted.length < options.batchSize && Records.length < 1000) {
      const since = gatheringSince.get(shardId) ?? Date.now();
      gatheringSince.set(shardId, since);
      // Not a full batch yet and the window is open: the same iterator is read again later, with what arrived since.
      if (Date.now() - since < options.batchingWindowMs) return 0;
    }
    gatheringSince.delete(shardId);
    for (let start = 0; start < wanted.length; start += options.batchSize) {
      const batch = wanted.slice(start, start + options.batchSize);
      const failedAt = await invoke(batch);
      if (failedAt !== undefined) {
        const { ShardIterator } = await client.send(
          new GetShardIteratorCommand({ StreamArn: streamArn, ShardId: shardId, ShardIteratorType: "AT_SEQUENCE_NUMBER", SequenceNumber: failedAt }),
        );
        iterators.set(shardId, ShardIterator);
        await sleep(1_000);
        return start;
      }
    }
    iterators.set(shardId, NextShardIterator);
    return Records.length;
  }

  /** Runs the handler; answers the sequence number to read again from, or undefined when the batch is done. */
  async function invoke(batch: StreamRecord[]): Promise<string | undefined> {
    const records = batch.map((record) => ({ ...record, eventSource: "aws:dynamodb", awsRegion: localRegion }) as DynamoDBRecord);
    const context = lambdaContext(name, options.timeoutSeconds * 1000);
    try {
      const result = await withTimeout(Promise.resolve(options.handler({ Records: records }, context)), options.timeoutSeconds * 1000, name);
      const failed = result?.batchItemFailures?.[0]?.itemIdentifier;
      return failed || undefined;
    } catch (error) {
      log(`${name} failed (${context.awsRequestId}): ${error instanceof Error ? error.stack : String(error)}`);
      return batch[0]!.dynamodb!.SequenceNumber!;
    }
  }

  const loop = (async () => {
    let streamArn: string | undefined;
    let lastDiscovery = 0;
    while (!stopped) {
      try {
        streamArn ??= (await options.dynamodb.send(new DescribeTableCommand({ TableName: options.tableName }))).Table?.LatestStreamArn;
        if (!streamArn) throw new Error(`The table ${options.tableName} has no stream.`);
        if (Date.now() - lastDiscovery > 1_000) {
          await discoverShards(streamArn);
          lastDiscovery = Date.now();
        }
        let read = 0;
        for (const shardId of iterators.keys()) read += await readShard(streamArn, shardId);
        if (read === 0) await sleep(options.idleMs ?? 100);
      } catch (error) {
        if (stopped) break;
        log(`${name}: stream read failed: ${error instanceof Error ? error.message : String(error)}`);
        await sleep(1_000);
      }
    }
  })();

  return {
    async stop() {
      stopped = true;
      await loop;
      client.destroy();
    },
  };
}
