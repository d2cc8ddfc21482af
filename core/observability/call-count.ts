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
  /**
   * Write units by AWS's billing rule, whatever DynamoDB Local reports: per table item written, 1 unit per KB
   * (rounded up) for a standard write and 2 per KB in a transaction; an update is sized by the item after it.
   * Index copies are not counted (ours are keys-only or small INCLUDE entries, each ~1 unit more where a write moves one).
   */
  awsWriteUnits: number;
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

const scope = new AsyncLocalStorage<Measurement>();
/** Calls the counter makes itself (reading an updated item's size) are not the measured code's. */
const unmeasured = new AsyncLocalStorage<true>();
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

const attributeValueTags = new Set(["S", "N", "B", "BOOL", "NULL", "M", "L", "SS", "NS", "BS"]);

/**
 * DynamoDB's item size: attribute names plus values (numbers ~1 byte per 2 digits, containers 3 bytes plus 1 per
 * element). Values come marshalled (`{ S: "…" }`, the low-level client's reads) or as plain values (the document
 * client's input, which this middleware sees before it is marshalled).
 */
function sizeOfValue(value: unknown): number {
  if (value === null || value === undefined || typeof value === "boolean") return 1;
  if (typeof value === "string") return Buffer.byteLength(value);
  if (typeof value === "number" || typeof value === "bigint")
    return Math.ceil(String(value).replace(/^-/, "").length / 2) + 1;
  if (value instanceof Uint8Array) return value.length;
  if (value instanceof Set) return [...value].reduce<number>((sum, element) => sum + sizeOfValue(element), 0);
  if (Array.isArray(value)) return 3 + value.reduce<number>((sum, element) => sum + 1 + sizeOfValue(element), 0);
  const entries = Object.entries(value as Input);
  if (entries.length === 1 && attributeValueTags.has(entries[0]![0])) {
    const [tag, inner] = entries[0]!;
    if (tag === "N") return Math.ceil(String(inner).replace(/^-/, "").length / 2) + 1;
    if (tag === "M") return 3 + sizeOfItem(inner as Input) + Object.keys(inner as Input).length;
    if (tag === "L")
      return 3 + (inner as unknown[]).reduce<number>((sum, element) => sum + 1 + sizeOfValue(element), 0);
    if (tag === "SS" || tag === "NS" || tag === "BS")
      return (inner as unknown[]).reduce<number>((sum, element) => sum + sizeOfValue(element), 0);
    return sizeOfValue(inner);
  }
  return 3 + sizeOfItem(value as Input) + entries.length;
}

/** An item's size by DynamoDB's rule (`sizeOfValue`); also what tests of a stored format weigh it with. */
export function sizeOfItem(item: Input | undefined): number {
  return Object.entries(item ?? {}).reduce(
    (sum, [name, value]) => sum + Buffer.byteLength(name) + sizeOfValue(value),
    0,
  );
}

const unitsOfSize = (bytes: number) => Math.max(1, Math.ceil(bytes / 1024));

/** Reads an item's stored attributes (unmeasured), to size an update by the item after it. */
export type ItemReader = (tableName: string, key: Input) => Promise<Input | undefined>;

async function awsWriteUnitsOf(command: string, input: Input, read: ItemReader | undefined): Promise<number> {
  const updated = async (update: Input) =>
    read ? sizeOfItem(await unmeasured.run(true, () => read(update.TableName, update.Key))) : 1024;
  switch (command) {
    case "PutItemCommand":
      return unitsOfSize(sizeOfItem(input.Item));
    case "UpdateItemCommand":
      return unitsOfSize(await updated(input));
    case "DeleteItemCommand":
      return 1;
    case "BatchWriteItemCommand":
      return Object.values((input.RequestItems ?? {}) as Record<string, Input[]>)
        .flat()
        .reduce((sum, request) => sum + unitsOfSize(sizeOfItem(request.PutRequest?.Item)), 0);
    case "TransactWriteItemsCommand": {
      let units = 0;
      for (const item of (input.TransactItems ?? []) as Input[]) {
        if (item.Put) units += 2 * unitsOfSize(sizeOfItem(item.Put.Item));
        else if (item.Update) units += 2 * unitsOfSize(await updated(item.Update));
        else units += 2;
      }
      return units;
    }
    default:
      return 0;
  }
}

/** A single-item write DynamoDB refused on its condition (which AWS still bills), not a transaction or another error. */
function refusedWrite(service: CallRecord["service"], command: string, error: unknown): boolean {
  return (
    service === "dynamodb" &&
    (error as Error).name === "ConditionalCheckFailedException" &&
    ["PutItemCommand", "UpdateItemCommand", "DeleteItemCommand"].includes(command)
  );
}

/** The middleware, for `client.middlewareStack.add(…, { step: "initialize" })`; `read` sizes updated items. */
export function countingMiddleware(service: CallRecord["service"], read?: ItemReader) {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- an AWS SDK middleware is generic over every command's input and output
  return (next: (args: any) => Promise<any>, context: { commandName?: string }) => async (args: { input: Input }) => {
    const targets = [global, scope.getStore()].filter((target): target is Measurement => target !== undefined);
    if (targets.length === 0 || unmeasured.getStore()) return next(args);
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
        // AWS bills a refused conditional write of one item too: at least a unit (its size is not known here).
        awsWriteUnits: refusedWrite(service, command, error) ? 1 : 0,
        error: (error as Error).name,
        writtenKeys: [],
        target: targetOf(command, args.input),
        input: args.input,
      };
      for (const target of targets) target.calls.push(failed);
      throw error;
    }
    const endedAt = performance.now();
    const output = (result.output ?? {}) as Output;
    const items = itemsOf(command, args.input, output);
    const units = unitsOf(command, output);
    const record: CallRecord = {
      service,
      command,
      index: args.input.IndexName,
      startedAt,
      endedAt,
      itemsRead: items.read,
      itemsWritten: items.written,
      readUnits: units.read,
      writeUnits: units.write,
      awsWriteUnits: service === "dynamodb" ? await awsWriteUnitsOf(command, args.input, read) : 0,
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
