import { randomUUID } from "node:crypto";
import { Task, TaskState } from "@a2a-js/sdk";
import { TaskNotFoundError } from "@a2a-js/sdk/errors";
import { describe, expect, it } from "vitest";
import { agentClient, asTask, eventsOf, resultOf, rpc, send, skill, statusOf, textPart } from "#tests/helpers/a2a";
import { baseUrl, newOrganization, request } from "#tests/helpers/stack";

/**
 * What the A2A project's conformance suite (a2aproject/a2a-tck) checks of `/a2a` and the card, restated as our own
 * tests (issue 32): the suite itself stays outside the project.
 */

/** A raw A2A 1.0 call; `result` or `error` of its JSON-RPC answer. */
async function call(token: string, method: string, params: Record<string, unknown>) {
  const response = await rpc({ jsonrpc: "2.0", id: method, method, params }, token);
  expect(response.status).toBe(200);
  return response.body as { result?: any; error?: { code: number; message: string } };
}

/** A generic text message as the suite sends it (A2A 1.0 wire shape). */
const hello = (text: string, extra: Record<string, unknown> = {}) => ({
  message: { messageId: randomUUID(), role: "ROLE_USER", parts: [{ text }], ...extra },
});

describe("A2A conformance: the agent card", () => {
  it("declares its bearer scheme in the A2A 1.0 shape by default and in the 0.3 shape for a 0.3 client", async () => {
    const card = await request("GET", "/.well-known/agent-card.json");
    expect(card.status).toBe(200);
    expect(card.headers.get("vary")).toContain("A2A-Version");
    expect(card.body.supportedInterfaces[0]).toEqual({
      url: `${baseUrl()}/a2a`,
      protocolBinding: "JSONRPC",
      protocolVersion: "1.0",
    });
    // One key per scheme, naming its kind (a2a.proto SecurityScheme oneof), and 1.0's securityRequirements.
    expect(card.body.securitySchemes).toEqual({
      bearer: { httpAuthSecurityScheme: expect.objectContaining({ scheme: "bearer" }) },
    });
    expect(card.body.securityRequirements).toEqual([{ schemes: { bearer: { list: [] } } }]);
    expect(card.body).not.toHaveProperty("security");

    const legacy = await request("GET", "/.well-known/agent-card.json", { headers: { "a2a-version": "0.3" } });
    expect(legacy.body.protocolVersion).toBe("0.3.0");
    expect(legacy.body.securitySchemes).toEqual({
      bearer: expect.objectContaining({ type: "http", scheme: "bearer" }),
    });
    expect(legacy.body.security).toEqual([{ bearer: [] }]);
  });

  it("is also served beside the JSON-RPC URL, without credentials, and the SDK client reads its scheme", async () => {
    const beside = await request("GET", "/a2a/.well-known/agent-card.json");
    expect(beside.status).toBe(200);
    expect(beside.body).toEqual((await request("GET", "/.well-known/agent-card.json")).body);

    const org = await newOrganization();
    const card = await (await agentClient(org.apiKey)).getAgentCard();
    expect(card.securitySchemes.bearer?.scheme).toEqual({
      $case: "httpAuthSecurityScheme",
      value: expect.objectContaining({ scheme: "bearer" }),
    });
  });
});

describe("A2A conformance: every message gets a task", () => {
  it("answers generic text with a task waiting for input, which can be read, listed, subscribed to and canceled", async () => {
    const org = await newOrganization();
    const sent = await call(org.apiKey, "SendMessage", hello("Task for cancel test"));
    const task = sent.result.task;
    expect(task.status.state).toBe("TASK_STATE_INPUT_REQUIRED");
    expect(task.status.message.parts[0].text).toContain("Available skills");

    expect((await call(org.apiKey, "GetTask", { id: task.id })).result).toMatchObject({
      id: task.id,
      status: { state: "TASK_STATE_INPUT_REQUIRED" },
    });
    expect((await call(org.apiKey, "ListTasks", {})).result.tasks.map((listed: Task) => listed.id)).toEqual([task.id]);

    const subscribed = await rpc(
      { jsonrpc: "2.0", id: 4, method: "SubscribeToTask", params: { id: task.id } },
      org.apiKey,
    );
    expect(subscribed.headers.get("content-type")).toMatch(/^text\/event-stream/);
    expect(eventsOf(subscribed.body)).toEqual([
      { jsonrpc: "2.0", id: 4, result: { task: expect.objectContaining({ id: task.id }) } },
    ]);

    const canceled = await call(org.apiKey, "CancelTask", { id: task.id });
    expect(canceled.result).toMatchObject({ id: task.id, status: { state: "TASK_STATE_CANCELED" } });
    // A2A 1.0 3.1.5: a task already canceled is not cancelable (the SDK alone would answer it again).
    expect((await call(org.apiKey, "CancelTask", { id: task.id })).error?.code).toBe(-32002);
  });

  it("refuses push notification configs, which the card does not claim, with -32003", async () => {
    const org = await newOrganization();
    const task = (await call(org.apiKey, "SendMessage", hello("push test"))).result.task;
    const card = await request("GET", "/.well-known/agent-card.json");
    expect(card.body.capabilities.pushNotifications).toBe(false);
    const answer = await call(org.apiKey, "CreateTaskPushNotificationConfig", {
      taskId: task.id,
      url: "https://hooks.example.com/a2a",
    });
    expect(answer.error?.code).toBe(-32003);
  });

  it("continues a task waiting for input with the skill the caller names, keeping the exchange in its history", async () => {
    const org = await newOrganization();
    const client = await agentClient(org.apiKey);
    const waiting = asTask(await send(client, [textPart("hello there")]));
    expect(waiting.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    const still = asTask(await send(client, [textPart("still not sure")], { taskId: waiting.id }));
    expect(still.id).toBe(waiting.id);
    expect(still.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);

    const done = asTask(await send(client, skill("automation-health"), { taskId: waiting.id }));
    expect(done.id).toBe(waiting.id);
    expect(resultOf(done).data.automationCount).toBe(0);
    const read = await client.getTask({ tenant: "", id: waiting.id });
    // Three user messages and the two questions they answered, in order.
    expect(read.history.map((message) => message.role)).toEqual([1, 2, 1, 2, 1]);
    expect((await client.getTask({ tenant: "", id: waiting.id, historyLength: 2 })).history).toHaveLength(2);
  });
});

describe("A2A conformance: ListTasks", () => {
  const listed = async (token: string, params: Record<string, unknown>) =>
    (await call(token, "ListTasks", params)).result;

  it("lists the most recently updated task first, and counts the page it answers in pageSize", async () => {
    const org = await newOrganization();
    const first = (await call(org.apiKey, "SendMessage", hello("first"))).result.task;
    const second = (await call(org.apiKey, "SendMessage", hello("second"))).result.task;
    const third = (await call(org.apiKey, "SendMessage", hello("third"))).result.task;
    expect((await listed(org.apiKey, {})).tasks.map((task: Task) => task.id)).toEqual([third.id, second.id, first.id]);

    // Updating the oldest moves it to the front.
    await call(org.apiKey, "CancelTask", { id: first.id });
    const all = await listed(org.apiKey, {});
    expect(all.tasks.map((task: Task) => task.id)).toEqual([first.id, third.id, second.id]);
    expect(all).toMatchObject({ totalSize: 3, pageSize: 3, nextPageToken: "" });

    const page = await listed(org.apiKey, { pageSize: 2 });
    expect(page).toMatchObject({ totalSize: 3, pageSize: 2 });
    const rest = await listed(org.apiKey, { pageSize: 2, pageToken: page.nextPageToken });
    expect(rest).toMatchObject({ pageSize: 1, nextPageToken: "" });
    expect(rest.tasks[0].id).toBe(second.id);

    expect(await listed(org.apiKey, { contextId: randomUUID() })).toEqual({
      tasks: [],
      totalSize: 0,
      pageSize: 0,
      nextPageToken: "",
    });
    const since = await listed(org.apiKey, { statusTimestampAfter: all.tasks[0].status.timestamp });
    expect(since.tasks.map((task: Task) => task.id)).toEqual([first.id]);
    expect((await listed(org.apiKey, { status: "TASK_STATE_CANCELED" })).tasks.map((task: Task) => task.id)).toEqual([
      first.id,
    ]);
  });

  it("pages 50 tasks at a time unless asked otherwise", { timeout: 120_000 }, async () => {
    const org = await newOrganization();
    for (let sent = 0; sent < 51; sent++)
      await call(org.apiKey, "SendMessage", hello(`task ${sent}`, { contextId: "fifty-one" }));
    const page = await listed(org.apiKey, { contextId: "fifty-one" });
    expect(page).toMatchObject({ totalSize: 51, pageSize: 50 });
    expect(page.tasks).toHaveLength(50);
    expect(page.nextPageToken).not.toBe("");
  });

  it("answers an invalid timestamp, history length, page size or page token with -32602", async () => {
    const org = await newOrganization();
    for (const params of [
      { statusTimestampAfter: "-1" },
      { statusTimestampAfter: "yesterday" },
      { historyLength: -1 },
      { pageSize: 0 },
      { pageSize: 101 },
      { pageToken: "invalid-token-xyz" },
      { status: "INVALID_STATUS" },
    ]) {
      const answer = await call(org.apiKey, "ListTasks", params);
      expect(answer.error?.code, JSON.stringify(params)).toBe(-32602);
    }
    expect((await call(org.apiKey, "GetTask", { id: randomUUID(), historyLength: -1 })).error?.code).toBe(-32602);
  });

  it("lists with the official SDK client's listTasks() when no status is given (it sends UNRECOGNIZED)", async () => {
    const org = await newOrganization();
    const client = await agentClient(org.apiKey);
    const task = asTask(await send(client, skill("automation-health")));
    const page = await client.listTasks({
      tenant: "",
      contextId: "",
      status: undefined as unknown as TaskState,
      pageToken: "",
      statusTimestampAfter: undefined,
    });
    expect(page.tasks.map((listedTask) => listedTask.id)).toEqual([task.id]);
  });
});

describe("A2A conformance: messages and streams", () => {
  it("answers a message without parts or without a role with -32602, in 1.0 and 0.3", async () => {
    const org = await newOrganization();
    const messageId = randomUUID();
    for (const [method, message] of [
      ["SendMessage", { messageId, role: "ROLE_USER", parts: [] }],
      ["SendMessage", { messageId, parts: [{ text: "Message without role" }] }],
      ["SendMessage", { messageId, role: "ROLE_NOBODY", parts: [{ text: "hi" }] }],
      ["message/send", { kind: "message", messageId, role: "user", parts: [] }],
      ["message/send", { kind: "message", messageId, parts: [{ kind: "text", text: "hi" }] }],
    ] as const) {
      const answer = await call(org.apiKey, method, { message });
      expect(answer.error?.code, `${method} ${JSON.stringify(message)}`).toBe(-32602);
      expect(answer.error?.message).toMatch(/\/message\/(parts|role)/);
    }
  });

  it("answers a subscription to an unknown task with an event stream carrying -32001", async () => {
    const org = await newOrganization();
    const response = await rpc(
      { jsonrpc: "2.0", id: 9, method: "SubscribeToTask", params: { id: randomUUID() } },
      org.apiKey,
      { accept: "text/event-stream" },
    );
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/^text\/event-stream/);
    expect(eventsOf(response.body)).toEqual([
      { jsonrpc: "2.0", id: 9, error: expect.objectContaining({ code: -32001 }) },
    ]);

    const client = await agentClient(org.apiKey);
    const subscription = client.resubscribeTask({ tenant: "", id: randomUUID() });
    const failure = await subscription.next().catch((error: Error) => error);
    expect((failure as Error).cause).toBeInstanceOf(TaskNotFoundError);
  });

  it("keeps answering real questions: a worded request still completes its skill", async () => {
    const org = await newOrganization();
    const task = (await call(org.apiKey, "SendMessage", hello("Which automations are failing?"))).result.task;
    expect(task.status.state).toBe("TASK_STATE_COMPLETED");
    expect(statusOf(Task.fromJSON(task)).text).toContain("no automations yet");
  });
});
