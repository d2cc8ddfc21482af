import { routedBy } from "#core/http/operation";
import { a2aRoutes } from "#stacks/definitions";

const defineOperation = routedBy(a2aRoutes);

/**
 * `POST /a2a` declares no body schema on purpose: the shared chain would answer
 * malformed JSON with a 400 problem, while JSON-RPC wants a -32700 parse error.
 * The agent reads the raw body itself (core/agent/rpc.ts); credentials, rate
 * limit and the `agent:use` permission still go through the chain (401/403/429 problems).
 */
export const agentRpc = /* @__PURE__ */ defineOperation({
  operationId: "agentRpc",
  summary: "A2A agent endpoint (JSON-RPC 2.0)",
  description:
    "A2A JSON-RPC: `message/send`, `message/stream`, `tasks/get`, `tasks/cancel` (A2A 0.3) and `SendMessage`, `SendStreamingMessage`, `GetTask`, `ListTasks`, `CancelTask` (A2A 1.0). " +
    "Every JSON-RPC answer, errors included (-32700, -32600, -32601, -32602, -32001 task not found, -32002 not cancelable, -32004 unsupported), is HTTP 200. " +
    "`message/stream` and `tasks/resubscribe` (0.3), `SendStreamingMessage` and `SubscribeToTask` (1.0) answer `text/event-stream`: " +
    "the whole stream at once (a Lambda behind API Gateway cannot hold a response open; skills finish within the call). Skills need the permission of their underlying operation besides `agent:use`. See the agent card.",
  tag: "Agent",
  auth: "bearer",
  permission: "agent:use",
  bodyJsonSchema: {
    type: "object",
    description: "A JSON-RPC 2.0 request (the server answers a malformed one with a JSON-RPC error, not a problem).",
    required: ["jsonrpc", "method"],
    properties: {
      jsonrpc: { const: "2.0" },
      id: { type: ["string", "integer", "null"] },
      method: { type: "string", examples: ["message/send", "tasks/get", "SendMessage"] },
      params: { type: "object" },
    },
  },
  success: {
    status: 200,
    description: "A JSON-RPC 2.0 response object, or for the streaming methods the whole event stream",
    jsonSchema: {
      type: "object",
      required: ["jsonrpc", "id"],
      properties: {
        jsonrpc: { const: "2.0" },
        id: { type: ["string", "integer", "null"] },
        result: {},
        error: {
          type: "object",
          required: ["code", "message"],
          properties: { code: { type: "integer" }, message: { type: "string" }, data: {} },
        },
      },
    },
    alternativeContent: {
      "text/event-stream": {
        type: "string",
        description:
          "Server-sent events: one `data:` line per JSON-RPC response object, then `event: error` if the stream failed.",
      },
    },
  },
  problems: [401, 403, 429],
  example: {
    jsonrpc: "2.0",
    id: 1,
    method: "message/send",
    params: {
      message: {
        kind: "message",
        role: "user",
        messageId: "6f1c2a9e-0000-4000-8000-000000000001",
        parts: [{ kind: "data", data: { skill: "automation-health", input: { onlyFailing: true } } }],
      },
    },
  },
});
