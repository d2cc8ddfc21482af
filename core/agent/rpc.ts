import { AgentCard, Extensions, TaskState, type CancelTaskRequest, type Task } from "@a2a-js/sdk";
import type { LegacyJsonRpcTransportHandler } from "@a2a-js/sdk/compat/v0_3/server";
import { A2A_ERROR_CODE, TaskNotCancelableError } from "@a2a-js/sdk/errors";
import {
  DefaultExecutionEventBusManager,
  DefaultRequestHandler,
  JsonRpcTransportHandler,
  ServerCallContext,
  STATE_HEADERS_KEY,
} from "@a2a-js/sdk/server";
import { actorOf, ActorUser } from "#core/agent/caller";
import { agentCard } from "#core/agent/card";
import { checkParams } from "#core/agent/params";
import { LeadAgentExecutor } from "#core/agent/executor";
import { DynamoTaskStore } from "#core/agent/task-store";
import type { Actor } from "#core/auth/actor";

/** A JSON-RPC 2.0 response object (always answered with HTTP 200). */
export interface JsonRpcResponse {
  jsonrpc: "2.0";
  id: string | number | null;
  result?: unknown;
  error?: { code: number; message: string; data?: unknown };
}

/**
 * A streaming method's answer: the JSON-RPC responses it produced, in order. A Lambda behind API Gateway HTTP API
 * cannot hold a response open, so the stream is complete when it is answered (the skills finish within the call);
 * `failure` is the error that ended it, sent as a last `event: error`, and may be all the stream holds (an unknown
 * task, invalid params): a client that asked for a stream reads its error from a stream.
 */
export interface JsonRpcEventStream {
  stream: JsonRpcResponse[];
  failure?: JsonRpcResponse;
}

/** The raw HTTP request as the edge received it: `/a2a` parses the body itself so bad JSON is a -32700, not a 400. */
export interface RpcRequest {
  body: string | undefined;
  isBase64Encoded?: boolean;
  headers: Record<string, string | undefined>;
}

/** JSON-RPC bodies above this size are refused (-32600) before parsing. */
export const maxRpcBytes = 1024 * 1024;

/** A2A 0.3 method names (served by the SDK's v0.3 compat handler). */
const legacyMethods = new Set([
  "message/send",
  "tasks/get",
  "tasks/cancel",
  "tasks/pushNotificationConfig/set",
  "tasks/pushNotificationConfig/get",
  "tasks/pushNotificationConfig/list",
  "tasks/pushNotificationConfig/delete",
  "agent/getAuthenticatedExtendedCard",
]);
/** A2A 1.0 method names (the SDK's native handler). */
const v1Methods = new Set([
  "SendMessage",
  "GetTask",
  "ListTasks",
  "CancelTask",
  "CreateTaskPushNotificationConfig",
  "GetTaskPushNotificationConfig",
  "ListTaskPushNotificationConfigs",
  "DeleteTaskPushNotificationConfig",
  "GetExtendedAgentCard",
]);
/** Server-sent-event methods (0.3 and 1.0 names): answered as a complete event stream (see JsonRpcEventStream). */
const streamingMethods = new Set(["message/stream", "tasks/resubscribe", "SendStreamingMessage", "SubscribeToTask"]);
const legacyStreamingMethods = new Set(["message/stream", "tasks/resubscribe"]);
const methodsWithoutParams = new Set(["agent/getAuthenticatedExtendedCard", "GetExtendedAgentCard"]);
const supportedVersions = new Set(["0.3", "1.0"]);

let requestHandler: LeadAgentRequestHandler | undefined;
let v1Transport: JsonRpcTransportHandler | undefined;
let legacyTransport: LegacyJsonRpcTransportHandler | undefined;

/**
 * The SDK's handler, except that canceling a task that is already canceled is TaskNotCancelableError (-32002), as
 * A2A 1.0 (3.1.5) lists it; the SDK answers the canceled task again.
 */
class LeadAgentRequestHandler extends DefaultRequestHandler {
  constructor(private readonly tasks: DynamoTaskStore) {
    super(
      AgentCard.fromJSON(agentCard()),
      tasks,
      new LeadAgentExecutor(),
      new DefaultExecutionEventBusManager((context) => actorOf(context).organizationId),
      undefined,
      undefined,
      undefined,
      undefined,
      // Nothing outlives a call here: a task waiting for input is answered and its bus closed (the SDK's default keeps
      // it open for a follow-up in the same process, which would hold the call open until the Lambda timeout).
      { keepBusAliveStates: [] },
    );
  }

  override async cancelTask(params: CancelTaskRequest, context: ServerCallContext): Promise<Task> {
    const task = await this.tasks.load(params.id, context);
    if (task?.status?.state === TaskState.TASK_STATE_CANCELED)
      throw new TaskNotCancelableError(`Task ${params.id} is already canceled.`);
    return super.cancelTask(params, context);
  }
}

/**
 * The SDK's transport for the request's protocol version, built once per container over one request handler (stateless
 * per request: the caller travels in the call context). The 0.3 transport is loaded on the first 0.3 call: a client of
 * A2A 1.0 never pays for its ~28 KB at a cold start.
 */
async function sdkTransport(legacy: boolean): Promise<JsonRpcTransportHandler | LegacyJsonRpcTransportHandler> {
  requestHandler ??= new LeadAgentRequestHandler(new DynamoTaskStore());
  if (!legacy) return (v1Transport ??= new JsonRpcTransportHandler(requestHandler));
  const { LegacyJsonRpcTransportHandler } = await import("@a2a-js/sdk/compat/v0_3/server");
  return (legacyTransport ??= new LegacyJsonRpcTransportHandler(requestHandler));
}

const failure = (id: JsonRpcResponse["id"], code: number, message: string): JsonRpcResponse => ({
  jsonrpc: "2.0",
  id,
  error: { code, message },
});
const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);
const isValidId = (id: unknown): id is string | number | null =>
  typeof id === "string" || id === null || (typeof id === "number" && Number.isInteger(id));

/**
 * Answers one A2A JSON-RPC request for an authenticated Actor. Transport
 * errors are JSON-RPC errors (-32700 parse, -32600 invalid request, -32601
 * method not found, -32602 invalid params); both the A2A 1.0 method names and
 * the 0.3 ones are served, chosen by the method name.
 */
export async function handleRpc(actor: Actor, request: RpcRequest): Promise<JsonRpcResponse | JsonRpcEventStream> {
  const raw =
    request.isBase64Encoded && request.body
      ? Buffer.from(request.body, "base64").toString("utf8")
      : (request.body ?? "");
  if (Buffer.byteLength(raw) > maxRpcBytes)
    return failure(null, A2A_ERROR_CODE.INVALID_REQUEST, `The request exceeds ${maxRpcBytes} bytes.`);
  let message: unknown;
  try {
    message = JSON.parse(raw);
  } catch {
    return failure(null, A2A_ERROR_CODE.PARSE_ERROR, "Parse error: the body is not valid JSON.");
  }
  if (Array.isArray(message))
    return failure(
      null,
      A2A_ERROR_CODE.INVALID_REQUEST,
      "Batch requests are not supported; send one request per call.",
    );
  if (!isObject(message))
    return failure(null, A2A_ERROR_CODE.INVALID_REQUEST, "The request must be a JSON-RPC 2.0 request object.");
  const id = isValidId(message.id) ? message.id : null;
  const idValid = !("id" in message) || isValidId(message.id);
  if (message.jsonrpc !== "2.0" || !idValid) {
    return failure(
      id,
      A2A_ERROR_CODE.INVALID_REQUEST,
      'Invalid request: "jsonrpc" must be "2.0" and "id" a string, an integer or null.',
    );
  }
  const method = message.method;
  if (typeof method !== "string" || method === "")
    return failure(id, A2A_ERROR_CODE.INVALID_REQUEST, 'Invalid request: "method" must be a non-empty string.');
  const legacy = legacyMethods.has(method) || legacyStreamingMethods.has(method);
  if (!legacy && !v1Methods.has(method) && !streamingMethods.has(method))
    return failure(id, A2A_ERROR_CODE.METHOD_NOT_FOUND, `Method not found: ${method}.`);
  if (!methodsWithoutParams.has(method) && !isObject(message.params)) {
    return failure(id, A2A_ERROR_CODE.INVALID_PARAMS, 'Invalid params: "params" must be an object.');
  }
  const streaming = streamingMethods.has(method);
  const refuse = (response: JsonRpcResponse) => (streaming ? { stream: [], failure: response } : response);
  const requestedVersion = request.headers["a2a-version"];
  if (requestedVersion !== undefined && !supportedVersions.has(requestedVersion)) {
    return refuse(
      failure(
        id,
        A2A_ERROR_CODE.VERSION_NOT_SUPPORTED,
        `A2A version ${requestedVersion} is not supported; use 1.0 or 0.3.`,
      ),
    );
  }
  const params = isObject(message.params) ? checkParams(method, message.params) : undefined;
  if (params && !params.ok) return refuse(failure(id, A2A_ERROR_CODE.INVALID_PARAMS, params.message));

  const context = new ServerCallContext({
    user: new ActorUser(actor),
    requestedVersion: legacy ? "0.3" : "1.0",
    requestedExtensions: Extensions.parseServiceParameter(
      request.headers["a2a-extensions"] ?? request.headers["x-a2a-extensions"],
    ),
    state: new Map<string, unknown>([[STATE_HEADERS_KEY, request.headers]]),
  });
  const call = params ? { ...message, params: params.params } : message;
  const answer = await (await sdkTransport(legacy)).handle(call, context);
  if (Symbol.asyncIterator in answer) return collectStream(id, answer as AsyncIterable<JsonRpcResponse>);
  const response = { ...answer, jsonrpc: "2.0" } as JsonRpcResponse;
  return response.error ? refuse(response) : response;
}

/**
 * Drains a streaming answer. An error ends the stream with an error event, also before the first event (A2A's
 * conformance suite and SDK clients read a subscription to an unknown task as a stream carrying -32001).
 */
async function collectStream(
  id: JsonRpcResponse["id"],
  answer: AsyncIterable<JsonRpcResponse>,
): Promise<JsonRpcEventStream> {
  const stream: JsonRpcResponse[] = [];
  try {
    for await (const event of answer) stream.push({ ...event, jsonrpc: "2.0" });
  } catch (error) {
    return { stream, failure: { jsonrpc: "2.0", id, error: JsonRpcTransportHandler.mapToJSONRPCError(error) } };
  }
  return { stream };
}
