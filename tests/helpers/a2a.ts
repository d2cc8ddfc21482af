import { randomUUID } from "node:crypto";
import { Role, type Message, type Part, type Task } from "@a2a-js/sdk";
import { Client, ClientFactory, JsonRpcTransportFactory } from "@a2a-js/sdk/client";
import { LegacyJsonRpcTransport } from "@a2a-js/sdk/compat/v0_3/client";
import { expect } from "vitest";
import { TaskState } from "@a2a-js/sdk";
import { baseUrl, request } from "#tests/helpers/stack";

/** The A2A clients and wire helpers the `/a2a` tests share (tests/http/a2a*.test.ts). */
export const bearerFetch =
  (token: string): typeof fetch =>
  (input, init) => {
    const headers = new Headers(init?.headers);
    headers.set("authorization", `Bearer ${token}`);
    return fetch(input, { ...init, headers });
  };

/** An A2A 1.0 client, built the way an agent would: discover the card, then pick its JSON-RPC interface. */
export function agentClient(token: string): Promise<Client> {
  return new ClientFactory({
    transports: [new JsonRpcTransportFactory({ fetchImpl: bearerFetch(token) })],
  }).createFromUrl(baseUrl());
}

/** An A2A 0.3 client (`message/send`, `tasks/get`, `tasks/cancel`) against the same endpoint. */
export async function legacyClient(token: string): Promise<Client> {
  const card = await (await agentClient(token)).getAgentCard();
  return new Client(new LegacyJsonRpcTransport({ endpoint: `${baseUrl()}/a2a`, fetchImpl: bearerFetch(token) }), card);
}

export const textPart = (value: string): Part => ({
  content: { $case: "text", value },
  mediaType: "text/plain",
  filename: "",
  metadata: undefined,
});
export const dataPart = (value: Record<string, unknown>): Part => ({
  content: { $case: "data", value },
  mediaType: "application/json",
  filename: "",
  metadata: undefined,
});

export function userMessage(
  parts: Part[],
  options: { metadata?: Record<string, unknown>; taskId?: string } = {},
): Message {
  return {
    messageId: randomUUID(),
    contextId: "",
    taskId: options.taskId ?? "",
    role: Role.ROLE_USER,
    parts,
    metadata: options.metadata,
    extensions: [],
    referenceTaskIds: [],
  };
}

export function send(
  client: Client,
  parts: Part[],
  options: { metadata?: Record<string, unknown>; taskId?: string } = {},
) {
  return client.sendMessage({
    tenant: "",
    message: userMessage(parts, options),
    configuration: undefined,
    metadata: undefined,
  });
}

export const skill = (id: string, input: Record<string, unknown> = {}) => [dataPart({ skill: id, input })];

export function asTask(result: Message | Task): Task {
  if ("messageId" in result) throw new Error(`Expected a task, got a message: ${JSON.stringify(result)}`);
  return result;
}

/** The text and data of a completed task's result artifact. */
export function resultOf(task: Task) {
  expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
  return partsOf(task.artifacts[0]?.parts ?? []);
}

/** The text and data of a task's status message (rejected, failed or waiting for input). */
export function statusOf(task: Task) {
  return partsOf(task.status?.message?.parts ?? []);
}

export function partsOf(parts: Part[]) {
  const text = parts.flatMap((part) => (part.content?.$case === "text" ? [part.content.value] : [])).join("\n");
  const data = parts.find((part) => part.content?.$case === "data")?.content?.value as Record<string, any>;
  return { text, data };
}

/** A raw JSON-RPC call to `/a2a` (a string body is sent as is). */
export const rpc = (body: unknown, token: string | null, headers: Record<string, string> = {}) =>
  request("POST", "/a2a", {
    body: typeof body === "string" ? body : JSON.stringify(body),
    token,
    headers: { "content-type": "application/json", ...headers },
  });

/** The JSON-RPC responses of an event-stream answer, in order (`event: error` ones included). */
export function eventsOf(body: unknown): any[] {
  return String(body)
    .split("\n\n")
    .filter(Boolean)
    .map((chunk) =>
      JSON.parse(
        chunk
          .split("\n")
          .find((line) => line.startsWith("data: "))!
          .slice("data: ".length),
      ),
    );
}
