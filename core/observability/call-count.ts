import { AsyncLocalStorage } from "node:async_hooks";

/**
 * Counts AWS calls for `npm run bench -- cost` (issue 16): an SDK middleware on
 * the DynamoDB and SQS clients, added only when `MEASURE_CALLS=1`, so it costs
 * nothing otherwise. Each call is recorded into every active measurement: the
 * process-wide one (`startMeasuring`, for flows that cross consumers) and the
 * async scope of `measureScope` (one handler invocation).
 */
export interface CallRecord {
  service: "dynamodb" | "sqs";
  command: string;
  index?: string;
  startedAt: number;
  endedAt: number;
  itemsRead: number;
  itemsWritten: number;
  readUnits: number;
  writeUnits: number;
  /** The error's name when the call failed (a cancelled transaction, a failed condition). */
  error?: string;
  /** `pk|sk` of each item the call wrote (hot-item analysis). */
  writtenKeys: string[];
  /** What the call touched, for `COST_TRACE=1`: the key read or the queue, with each written key's entity prefix. */
  target: string;
  /** The command's input as sent (`npm run bench -- hot-org` derives the units of each partition key from it). */
  input: Input;
}

export interface Measurement {
  calls: CallRecord[];
}

export const measuringEnabled = (): boolean => process.env.MEASURE_CALLS === "1";

const scope = new AsyncLocalStorage<Measurement>();
let global: Measurement | undefined;

/** Starts (or restarts) the process-wide measurement and returns it. */
export function startMeasuring(): Measurement {
  global = { calls: [] };
  return global;
}

/** Runs `work` with its own measurement of the calls made in its async scope. */
export async function measureScope<T>(work: () => Promise<T>): Promise<{ result: T; measurement: Measurement }> {
  const measurement: Measurement = { calls: [] };
  const result = await scope.run(measurement, work);
  return { result, measurement };
}

/** Sequential round trips: calls whose time spans overlap count as one. */
export function sequentialDepth(calls: CallRecord[]): number {
  const spans = calls.map((call) => [call.startedAt, call.endedAt] as const).sort((a, b) => a[0] - b[0]);
  let depth = 0;
  let end = -Infinity;
  for (const [start, stop] of spans) {
    if (start >= end) depth++;
    end = Math.max(end, stop);
  }
  return depth;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the SDK's command input and output, whatever the command
type Input = Record<string, any>;
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- as above
type Output = Record<string, any>;

function keyOf(key: Input | undefined): string[] {
  if (!key) return [];
  const text = (value: unknown) =>
    typeof value === "object" && value !== null && "S" in value ? String((value as { S: unknown }).S) : String(value);
  return [`${text(key.pk)}|${text(key.sk)}`];
}

function writtenKeysOf(command: string, input: Input): string[] {
  switch (command) {
    case "PutItemCommand":
      return keyOf(input.Item);
    case "UpdateItemCommand":
    case "DeleteItemCommand":
      return keyOf(input.Key);
    case "TransactWriteItemsCommand":
      return (input.TransactItems ?? []).flatMap((item: Input) =>
        keyOf(item.Put?.Item ?? item.Update?.Key ?? item.Delete?.Key),
      );
    default:
      return [];
  }
}

function itemsOf(command: string, input: Input, output: Output): { read: number; written: number } {
  switch (command) {
    case "GetItemCommand":
      return { read: output.Item ? 1 : 0, written: 0 };
    case "QueryCommand":
    case "ScanCommand":
      return { read: output.ScannedCount ?? output.Count ?? 0, written: 0 };
    case "BatchGetItemCommand":
      return {
        read: Object.values((output.Responses ?? {}) as Record<string, unknown[]>).reduce(
          (sum, items) => sum + items.length,
          0,
        ),
        written: 0,
      };
    case "PutItemCommand":
    case "UpdateItemCommand":
    case "DeleteItemCommand":
      return { read: 0, written: 1 };
    case "TransactWriteItemsCommand":
      return { read: 0, written: (input.TransactItems ?? []).filter((item: Input) => !item.ConditionCheck).length };
    case "BatchWriteItemCommand":
      return {
        read: 0,
        written: Object.values((input.RequestItems ?? {}) as Record<string, unknown[]>).reduce(
          (sum, items) => sum + items.length,
          0,
        ),
      };
    default:
      return { read: 0, written: 0 };
  }
}

/** A short description of the call's target: the key of a get or query, or the keys written. */
function targetOf(command: string, input: Input): string {
  const short = (key: string) =>
    key
      .split("|")
      .map((part) =>
        part
          .split("#")
          .filter((_, index) => index !== 1)
          .join("#"),
      )
      .join("|");
  if (command === "GetItemCommand") return short(keyOf(input.Key)[0] ?? "");
  if (command === "QueryCommand")
    return String(Object.values(input.ExpressionAttributeValues ?? {})[0] ?? "")
      .split("#")
      .filter((_, index) => index !== 1)
      .join("#");
  if (command === "BatchGetItemCommand")
    return Object.values((input.RequestItems ?? {}) as Record<string, { Keys: Input[] }>)
      .flatMap((request) => request.Keys.map((key) => short(keyOf(key)[0] ?? "")))
      .join(", ");
  if (command === "SendMessageCommand" || command === "SendMessageBatchCommand")
    return (
      String(input.QueueUrl ?? "")
        .split("/")
        .pop() ?? ""
    );
  return writtenKeysOf(command, input).map(short).join(", ");
}

const readCommands = new Set([
  "GetItemCommand",
  "QueryCommand",
  "ScanCommand",
  "BatchGetItemCommand",
  "TransactGetItemsCommand",
]);

/** Capacity units of a call (`ReturnConsumedCapacity: TOTAL` reports one total: a read command's are read units, a write's are write units). */
function unitsOf(command: string, output: Output): { read: number; write: number } {
  const consumed = ([] as Output[]).concat(output.ConsumedCapacity ?? []);
  const total = consumed.reduce((sum, entry) => sum + (entry.CapacityUnits ?? 0), 0);
  return readCommands.has(command) ? { read: total, write: 0 } : { read: 0, write: total };
}

/** The middleware, for `client.middlewareStack.add(…, { step: "initialize" })`. */
export function countingMiddleware(service: CallRecord["service"]) {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- an AWS SDK middleware is generic over every command's input and output
  return (next: (args: any) => Promise<any>, context: { commandName?: string }) => async (args: { input: Input }) => {
    const targets = [global, scope.getStore()].filter((target): target is Measurement => target !== undefined);
    if (targets.length === 0) return next(args);
    const command = context.commandName ?? "unknown";
    if (service === "dynamodb" && command !== "DescribeTableCommand") args.input.ReturnConsumedCapacity ??= "TOTAL";
    const startedAt = performance.now();
    let result: { output?: Output };
    try {
      result = await next(args);
    } catch (error) {
      const failed: CallRecord = {
        service,
        command,
        index: args.input.IndexName,
        startedAt,
        endedAt: performance.now(),
        itemsRead: 0,
        itemsWritten: 0,
        readUnits: 0,
        writeUnits: 0,
        error: (error as Error).name,
        writtenKeys: [],
        target: targetOf(command, args.input),
        input: args.input,
      };
      for (const target of targets) target.calls.push(failed);
      throw error;
    }
    const output = (result.output ?? {}) as Output;
    const items = itemsOf(command, args.input, output);
    const units = unitsOf(command, output);
    const record: CallRecord = {
      service,
      command,
      index: args.input.IndexName,
      startedAt,
      endedAt: performance.now(),
      itemsRead: items.read,
      itemsWritten: items.written,
      readUnits: units.read,
      writeUnits: units.write,
      writtenKeys: writtenKeysOf(command, args.input),
      target: targetOf(command, args.input),
      input: args.input,
    };
    for (const target of targets) target.calls.push(record);
    return result;
  };
}

/** Ends the process-wide measurement. */
export function stopMeasuring(): Measurement | undefined {
  const ended = global;
  global = undefined;
  return ended;
}
