import { DescribeTableCommand, type DynamoDBClient } from "@aws-sdk/client-dynamodb";
import {
  DescribeStreamCommand,
  DynamoDBStreamsClient,
  GetRecordsCommand,
  GetShardIteratorCommand,
  type _Record as StreamRecord,
} from "@aws-sdk/client-dynamodb-streams";
import { SendMessageCommand, type SQSClient } from "@aws-sdk/client-sqs";
import type { DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from "aws-lambda";
import { randomUUID } from "node:crypto";
import { lambdaContext, withTimeout, type LambdaHandler } from "#local/handlers";
import { localCredentials, localRegion } from "#local/resources";
import { streamFailurePolicy } from "#stacks/definitions";

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
  /** What to do with a failing batch (bisect, retries, record age): the manifest's, as deployed. */
  failurePolicy?: StreamFailurePolicy;
  /** Where a batch that failed every attempt is described (the stream DLQ): Lambda's on-failure destination. */
  deadLetters: (failure: StreamFailureRecord) => Promise<void>;
  /** Pause before a failed batch is retried (default 1 s). */
  retryDelayMs?: number;
  log?: (line: string) => void;
}

export type StreamFailureCondition = "RetryAttemptsExhausted" | "RecordAgeExceeded";

/** The message Lambda sends a DynamoDB stream event source's on-failure destination (the records stay in the stream). */
export interface StreamFailureRecord {
  requestContext: {
    requestId: string;
    functionArn: string;
    condition: StreamFailureCondition;
    approximateInvokeCount: number;
  };
  responseContext: { statusCode: number; executedVersion: string; functionError: string };
  version: "1.0";
  timestamp: string;
  DDBStreamBatchInfo: {
    shardId: string;
    startSequenceNumber: string;
    endSequenceNumber: string;
    approximateArrivalOfFirstRecord: string | null;
    approximateArrivalOfLastRecord: string | null;
    batchSize: number;
    streamArn: string;
  };
}

/** The deployed policy's settings, widened so a test can shorten them (a record cannot be made 60 s old in a test). */
interface StreamFailurePolicy {
  maximumRetryAttempts: number;
  maximumRecordAgeSeconds: number;
  bisectBatchOnFunctionError: boolean;
}

/** Sends each stream failure description to an SQS queue (the local stream DLQ), as Lambda does. */
export function sendStreamFailuresTo(
  client: SQSClient,
  queueUrl: string,
): (failure: StreamFailureRecord) => Promise<void> {
  return async (failure) =>
    void (await client.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: JSON.stringify(failure) })));
}

const sequenceOf = (record: StreamRecord) => record.dynamodb!.SequenceNumber!;

/** The leading records of a batch older than the maximum record age (Lambda discards those rather than invoke). */
function prefixOlderThan(batch: StreamRecord[], maximumAgeSeconds: number): StreamRecord[] {
  const oldest = Date.now() - maximumAgeSeconds * 1000;
  const young = batch.findIndex(
    (record) => (record.dynamodb?.ApproximateCreationDateTime?.getTime() ?? Date.now()) >= oldest,
  );
  return young < 0 ? batch : batch.slice(0, young);
}

/**
 * Reads the table's stream the way Lambda's DynamoDB event source does: every shard from its oldest record,
 * records filtered on event name and `entity` as the deployed filter does, batches of `batchSize` gathered for up to
 * the batching window, and on a failure (thrown, timed out, or `batchItemFailures`) the same shard is read again
 * from the first failed record, with the deployed failure policy (stacks/definitions.ts `streamFailurePolicy`):
 * the failing batch is halved down to the failing record, retried `maximumRetryAttempts` times, then described to
 * the dead-letter queue and passed, so the rest of the shard flows on; records older than the maximum age are not
 * invoked but dead-lettered.
 */
export function startStreamPoller(options: StreamPollerOptions): { stop(): Promise<void> } {
  const client = new DynamoDBStreamsClient({
    endpoint: options.endpoint,
    region: localRegion,
    credentials: localCredentials,
  });
  const log = options.log ?? (() => undefined);
  const name = options.functionName ?? "stream-consumer";
  let stopped = false;
  /** Shard id → the iterator to read next (absent once the shard is closed and drained). */
  const iterators = new Map<string, string | undefined>();
  /** Shard id → when the records now waiting for the batching window were first seen. */
  const gatheringSince = new Map<string, number>();
  /** Shard id → the batch being retried: from which record, how many records, after how many failed attempts. */
  const retries = new Map<string, { sequenceNumber: string; batchSize: number; attempts: number }>();
  const policy = options.failurePolicy ?? streamFailurePolicy;

  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  async function discoverShards(streamArn: string): Promise<void> {
    const { StreamDescription } = await client.send(new DescribeStreamCommand({ StreamArn: streamArn }));
    for (const shard of StreamDescription?.Shards ?? []) {
      if (!shard.ShardId || iterators.has(shard.ShardId)) continue;
      const { ShardIterator } = await client.send(
        new GetShardIteratorCommand({
          StreamArn: streamArn,
          ShardId: shard.ShardId,
          ShardIteratorType: "TRIM_HORIZON",
        }),
      );
      iterators.set(shard.ShardId, ShardIterator);
    }
  }

  async function readShard(streamArn: string, shardId: string): Promise<number> {
    const iterator = iterators.get(shardId);
    if (!iterator) return 0;
    const { Records = [], NextShardIterator } = await client.send(
      new GetRecordsCommand({ ShardIterator: iterator, Limit: 1000 }),
    );
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
    let start = 0;
    while (start < wanted.length) {
      const retry = retries.get(shardId);
      const retrying = retry?.sequenceNumber === sequenceOf(wanted[start]!);
      const batch = wanted.slice(start, start + (retrying ? retry!.batchSize : options.batchSize));
      const expired = prefixOlderThan(batch, policy.maximumRecordAgeSeconds);
      if (expired.length > 0) {
        await deadLetter(streamArn, shardId, expired, "RecordAgeExceeded", 0);
        start += expired.length;
        continue;
      }
      const failedAt = await invoke(batch);
      if (failedAt === undefined) {
        retries.delete(shardId);
        start += batch.length;
        continue;
      }
      // The records before the failed one are done; the batch is retried from it, split in halves down to it
      // (bisect), and only then do attempts count: after the retries, its description goes to the DLQ.
      start += failedAt;
      const failing = batch.slice(failedAt);
      const sameRecord = retrying && retry!.sequenceNumber === sequenceOf(failing[0]!);
      const split = policy.bisectBatchOnFunctionError && failing.length > 1;
      const attempts = split ? 0 : (sameRecord ? retry!.attempts : 0) + 1;
      if (!split && attempts > policy.maximumRetryAttempts) {
        await deadLetter(streamArn, shardId, failing, "RetryAttemptsExhausted", attempts);
        retries.delete(shardId);
        start += failing.length;
        continue;
      }
      retries.set(shardId, {
        sequenceNumber: sequenceOf(failing[0]!),
        attempts,
        batchSize: split ? Math.ceil(failing.length / 2) : failing.length,
      });
      const { ShardIterator } = await client.send(
        new GetShardIteratorCommand({
          StreamArn: streamArn,
          ShardId: shardId,
          ShardIteratorType: "AT_SEQUENCE_NUMBER",
          SequenceNumber: sequenceOf(failing[0]!),
        }),
      );
      iterators.set(shardId, ShardIterator);
      await sleep(options.retryDelayMs ?? 1_000);
      return start;
    }
    iterators.set(shardId, NextShardIterator);
    return Records.length;
  }

  /** Runs the handler; answers the index in `batch` to retry from, or undefined when the whole batch is done. */
  async function invoke(batch: StreamRecord[]): Promise<number | undefined> {
    const records = batch.map(
      (record) => ({ ...record, eventSource: "aws:dynamodb", awsRegion: localRegion }) as DynamoDBRecord,
    );
    const context = lambdaContext(name, options.timeoutSeconds * 1000);
    try {
      const result = await withTimeout(
        Promise.resolve(options.handler({ Records: records }, context)),
        options.timeoutSeconds * 1000,
        name,
      );
      const failed = result?.batchItemFailures?.[0]?.itemIdentifier;
      if (!failed) return undefined;
      const index = batch.findIndex((record) => sequenceOf(record) === failed);
      // An identifier that names no record of the batch fails the whole batch, as in Lambda.
      return index < 0 ? 0 : index;
    } catch (error) {
      log(`${name} failed (${context.awsRequestId}): ${error instanceof Error ? error.stack : String(error)}`);
      return 0;
    }
  }

  /** What Lambda sends an on-failure destination for a stream batch: where it was, never the records. */
  async function deadLetter(
    streamArn: string,
    shardId: string,
    batch: StreamRecord[],
    condition: StreamFailureCondition,
    attempts: number,
  ) {
    const arrival = (record: StreamRecord) => record.dynamodb?.ApproximateCreationDateTime?.toISOString() ?? null;
    const failure: StreamFailureRecord = {
      requestContext: {
        requestId: randomUUID(),
        functionArn: `arn:aws:lambda:${localRegion}:000000000000:function:${name}`,
        condition,
        approximateInvokeCount: attempts,
      },
      responseContext: { statusCode: 200, executedVersion: "$LATEST", functionError: "Unhandled" },
      version: "1.0",
      timestamp: new Date().toISOString(),
      DDBStreamBatchInfo: {
        shardId,
        startSequenceNumber: sequenceOf(batch[0]!),
        endSequenceNumber: sequenceOf(batch.at(-1)!),
        approximateArrivalOfFirstRecord: arrival(batch[0]!),
        approximateArrivalOfLastRecord: arrival(batch.at(-1)!),
        batchSize: batch.length,
        streamArn,
      },
    };
    log(
      `${name}: ${batch.length} stream record(s) from ${failure.DDBStreamBatchInfo.startSequenceNumber} sent to the dead-letter queue (${condition})`,
    );
    await options.deadLetters(failure);
  }

  const loop = (async () => {
    let streamArn: string | undefined;
    let lastDiscovery = 0;
    while (!stopped) {
      try {
        streamArn ??= (await options.dynamodb.send(new DescribeTableCommand({ TableName: options.tableName }))).Table
          ?.LatestStreamArn;
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
