import { randomUUID } from "node:crypto";
import { Role, TaskState, type Message, type Task } from "@a2a-js/sdk";
import { TaskNotCancelableError, TaskNotFoundError } from "@a2a-js/sdk/errors";
import { describe, expect, it } from "vitest";
import { speedToLeadExample } from "#core/automations/definition";
import * as Organizations from "#core/organizations/index";
import {
  agentClient,
  asTask,
  eventsOf,
  legacyClient,
  resultOf,
  rpc,
  send,
  skill,
  statusOf,
  textPart,
} from "#tests/helpers/a2a";
import { addNumber, createLead as createLeadWithPhone, randomNumber, waitForMessage } from "#tests/helpers/messaging";
import { agents, assign } from "#tests/helpers/routing";
import { baseUrl, newOrganization, type TestOrganization } from "#tests/helpers/stack";

const createLead = (org: TestOrganization, contact: Record<string, unknown>) =>
  org.request("POST", "/leads", { body: { contact } });

const createAutomation = (org: TestOrganization, overrides: Record<string, unknown> = {}) =>
  org.request("POST", "/automations", { body: { ...speedToLeadExample, ...overrides } });

/** An A2A 0.3 wire message asking (by keyword) for the automations' health. */
const message = { kind: "message", role: "user", messageId: "m-1", parts: [{ kind: "text", text: "automations" }] };

describe("A2A agent: discovery and skills", () => {
  it("is discovered through its agent card by the SDK client, which lists every skill /a2a serves", async () => {
    const org = await newOrganization();
    const client = await agentClient(org.apiKey);
    const card = await client.getAgentCard();
    expect(card.supportedInterfaces.map((i) => i.protocolVersion).sort()).toEqual(["0.3", "1.0"]);
    expect(card.supportedInterfaces[0]!.url).toBe(`${baseUrl()}/a2a`);
    expect(card.skills.map((s) => s.id).sort()).toEqual(
      ["automation-health", "find-leads", "my-leads", "lead-timeline", "send-message", "summarize-performance"].sort(),
    );
    expect(card.capabilities?.streaming).toBe(true);
  });

  it("automation-health lists the organization's automations with their health, for a structured request", async () => {
    const org = await newOrganization();
    const enabled = await createAutomation(org);
    const disabled = await createAutomation(org, { name: "Paused follow-up", enabled: false });
    const other = await newOrganization();
    await createAutomation(other, { name: "Someone else's" });

    const task = asTask(await send(await agentClient(org.ownerToken), skill("automation-health")));
    const { text, data } = resultOf(task);
    expect(text).toContain("2 automations, 1 enabled");
    expect(data).toMatchObject({ automationCount: 2, enabledCount: 1, failingCount: 0, truncated: false });
    expect(data.automations).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          id: enabled.body.id,
          name: "Speed to lead",
          health: "NeverRun",
          lastRunStatus: null,
        }),
        expect.objectContaining({ id: disabled.body.id, name: "Paused follow-up", health: "Disabled" }),
      ]),
    );
    expect(data.automations).toHaveLength(2);
    expect(task.metadata).toMatchObject({ skill: "automation-health" });
  });

  it("picks a skill from plain text by keywords, and from message metadata", async () => {
    const org = await newOrganization();
    await createAutomation(org);
    const client = await agentClient(org.memberToken);

    const failing = resultOf(asTask(await send(client, [textPart("Which automations are failing?")])));
    expect(failing.data).toMatchObject({ automationCount: 1, automations: [] });
    expect(failing.text).toContain("None is failing");

    const viaMetadata = asTask(
      await send(client, [textPart("please")], { metadata: { skill: "automation-health", input: {} } }),
    );
    expect(resultOf(viaMetadata).data.automations).toHaveLength(1);
  });

  it("summarize-performance answers with the analytics of the requested period, for people and agents", async () => {
    const org = await newOrganization();
    await createAutomation(org);
    await createLeadWithPhone(org, randomNumber("212"));
    await createLeadWithPhone(org, randomNumber("415"));
    await createLeadWithPhone(await newOrganization(), randomNumber("212"));
    const client = await agentClient(org.apiKey);
    // Leads are counted once processing records them (asynchronously): ask until both are in.
    const ask = async () =>
      resultOf(asTask(await send(client, [textPart("How fast did we respond to leads in the last 7 days?")])));
    let answer = await ask();
    // Counted off the table's stream: on a busy machine that can take several seconds.
    for (const deadline = Date.now() + 40_000; answer.data.summary.leads < 2 && Date.now() < deadline;) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      answer = await ask();
    }
    const { text, data } = answer;
    expect(data.days).toBe(7);
    expect(data.summary).toMatchObject({ leads: 2, smsSent: 0 });
    expect(data.automationHealth).toMatchObject({ automationCount: 1, enabledCount: 1 });
    expect(Date.parse(data.range.endAt) - Date.parse(data.range.startAt)).toBe(7 * 24 * 3600 * 1000);
    expect(data.leadTrend).toMatchObject({ total: 2 });
    expect(data.leadTrend.points).toBeUndefined();
    expect(text).toContain("Last 7 days: 2 new leads");
    expect(text).toContain("Automations: 1 (1 enabled, 0 failing)");
  });

  it("find-leads searches the organization's leads, from structured input or words", async () => {
    const org = await newOrganization();
    const ada = await createLead(org, { firstName: "Ada", lastName: "Lovelace", email: "ada@example.com" });
    await createLead(org, { firstName: "Grace", lastName: "Hopper" });
    await createLead(await newOrganization(), { firstName: "Ada", lastName: "Elsewhere" });
    const client = await agentClient(org.memberToken);

    const structured = resultOf(asTask(await send(client, skill("find-leads", { search: "lovelace" }))));
    expect(structured.data.totalCount).toBe(1);
    expect(structured.data.leads).toEqual([
      expect.objectContaining({ id: ada.body.id, firstName: "Ada", email: "ada@example.com" }),
    ]);
    expect(structured.text).toContain(ada.body.id);

    const worded = resultOf(asTask(await send(client, [textPart("Find leads named Ada")])));
    expect(worded.data.leads.map((lead: { id: string }) => lead.id)).toEqual([ada.body.id]);

    const all = resultOf(asTask(await send(client, skill("find-leads", { pageSize: 1 }))));
    expect(all.data).toMatchObject({ totalCount: 2, continuationToken: expect.any(String) });
    expect(all.data.leads).toHaveLength(1);
  });

  it("my-leads lists the leads assigned to the calling user, from structured input or words; an API key is refused", async () => {
    const org = await newOrganization();
    const [ann, bob] = await agents(org, 2);
    const leads = await Promise.all(
      ["Ada", "Grace", "Edsger"].map(async (firstName) => (await createLead(org, { firstName })).body),
    );
    await assign(org, leads[0].id, ann!.id);
    await assign(org, leads[2].id, ann!.id);
    await assign(org, leads[1].id, bob!.id);
    const client = await agentClient(ann!.token);

    const structured = resultOf(asTask(await send(client, skill("my-leads"))));
    expect(structured.data.totalCount).toBe(2);
    expect(structured.data.leads.map((lead: { id: string }) => lead.id)).toEqual([leads[2].id, leads[0].id]);
    expect(structured.text).toContain("2 leads are assigned to you");
    const worded = resultOf(asTask(await send(client, [textPart("Which leads are assigned to me?")])));
    expect(worded.data.leads.map((lead: { id: string }) => lead.id)).toEqual([leads[2].id, leads[0].id]);
    const bobs = resultOf(asTask(await send(await agentClient(bob!.token), skill("my-leads"))));
    expect(bobs.data.leads.map((lead: { id: string }) => lead.id)).toEqual([leads[1].id]);

    const keyed = asTask(await send(await agentClient(org.apiKey), skill("my-leads")));
    expect(keyed.status?.state).toBe(TaskState.TASK_STATE_REJECTED);
  });

  it("find-leads rejects a filter the lead list does not support", async () => {
    const org = await newOrganization();
    const task = asTask(
      await send(await agentClient(org.apiKey), skill("find-leads", { filters: [{ field: "shoeSize", value: 42 }] })),
    );
    expect(task.status?.state).toBe(TaskState.TASK_STATE_REJECTED);
    expect(statusOf(task).data.error).toMatchObject({
      code: "validation_failed",
      errors: [{ pointer: "/filters/0/field" }],
    });
  });

  it("send-message texts a lead through the messaging pipeline, and lead-timeline shows the message's events", async () => {
    const org = await newOrganization();
    await addNumber(org);
    const lead = await createLeadWithPhone(org, randomNumber("212"));
    const client = await agentClient(org.memberToken);

    const task = asTask(
      await send(client, [textPart(`Text lead ${lead.id}: "Thanks for reaching out, when is a good time to call?"`)]),
    );
    const sent = resultOf(task);
    expect(sent.data.message).toMatchObject({
      leadId: lead.id,
      direction: "Outbound",
      status: "Pending",
      body: "Thanks for reaching out, when is a good time to call?",
    });
    expect(sent.text).toContain(sent.data.message.id);
    const delivered = await waitForMessage(org, sent.data.message.id, (message) => message.status === "Delivered");
    expect(delivered.leadId).toBe(lead.id);

    // The delivery event may land just after the status: ask again until the timeline has it.
    const typesOf = (events: { relatedEntityId?: string; eventType: string }[]) =>
      events.filter((event) => event.relatedEntityId === delivered.id).map((event) => event.eventType);
    let timeline = resultOf(asTask(await send(client, skill("lead-timeline", { leadId: lead.id }))));
    for (
      const deadline = Date.now() + 15_000;
      !typesOf(timeline.data.events).includes("MessageDelivered") && Date.now() < deadline;
    ) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      timeline = resultOf(asTask(await send(client, skill("lead-timeline", { leadId: lead.id }))));
    }
    expect(timeline.data.lead).toMatchObject({ id: lead.id, firstName: "Dana" });
    expect(typesOf(timeline.data.events)).toEqual(expect.arrayContaining(["MessageAccepted", "MessageDelivered"]));
    expect(timeline.text).toContain("MessageDelivered");
    const createdAts = timeline.data.events.map((event: { createdAt: string }) => event.createdAt);
    expect(createdAts).toEqual([...createdAts].sort().reverse());
  });

  it("lead-timeline and send-message fail for a lead of another organization, and send-message needs a body", async () => {
    const org = await newOrganization();
    const other = await newOrganization();
    const foreign = await createLeadWithPhone(other, randomNumber("212"));
    const client = await agentClient(org.apiKey);

    const timeline = asTask(await send(client, [textPart(`Show the timeline of lead ${foreign.id}`)]));
    expect(timeline.status?.state).toBe(TaskState.TASK_STATE_FAILED);
    expect(statusOf(timeline).data.error).toEqual({ code: "not_found" });

    const message = asTask(await send(client, skill("send-message", { leadId: foreign.id, body: "Hi" })));
    expect(message.status?.state).toBe(TaskState.TASK_STATE_REJECTED);
    expect(statusOf(message).data.error).toMatchObject({ code: "validation_failed", errors: [{ pointer: "/leadId" }] });

    const noBody = asTask(await send(client, skill("send-message", { leadId: foreign.id })));
    expect(statusOf(noBody).data.error).toMatchObject({ code: "validation_failed", errors: [{ pointer: "/body" }] });
  });

  it("rejects skill input that fails validation, naming the field", async () => {
    const org = await newOrganization();
    const task = asTask(await send(await agentClient(org.apiKey), skill("summarize-performance", { days: 0 })));
    expect(task.status?.state).toBe(TaskState.TASK_STATE_REJECTED);
    const { text, data } = statusOf(task);
    expect(data.error).toMatchObject({ code: "validation_failed", errors: [{ pointer: "/days" }] });
    expect(text).toContain("days must be 1-365");
  });

  it("answers a message naming no known skill with a task waiting for input that lists the skills", async () => {
    const org = await newOrganization();
    const client = await agentClient(org.apiKey);
    for (const parts of [skill("order-pizza"), [textPart("hello there")]]) {
      const task = asTask(await send(client, parts));
      expect(task.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
      const { text, data } = statusOf(task);
      expect(text).toContain("automation-health");
      expect(data.error.code).toBe("unknown_skill");
      expect(data.availableSkills.map((s: { id: string }) => s.id)).toContain("find-leads");
    }
  });

  it("refuses a skill whose underlying permission the credential lacks", async () => {
    const org = await newOrganization();
    const { apiKey } = await Organizations.issueApiKey(org.organizationId, {
      name: "agent only",
      scopes: ["agent:use"],
    });
    const client = await agentClient(apiKey);
    const leadId = "01JABCDEFGHJKMNPQRSTVWXYZ0";
    const task = asTask(await send(client, skill("send-message", { leadId, body: "Hi" })));
    expect(task.status?.state).toBe(TaskState.TASK_STATE_REJECTED);
    expect(statusOf(task).data.error).toEqual({ code: "forbidden", missingPermissions: ["messages:send"] });
    const automations = asTask(await send(client, skill("automation-health")));
    expect(statusOf(automations).data.error).toEqual({ code: "forbidden", missingPermissions: ["automations:read"] });
  });
});

describe("A2A agent: tasks", () => {
  it("reads a task back with tasks/get (1.0 GetTask) and hides it from other organizations", async () => {
    const org = await newOrganization();
    const client = await agentClient(org.apiKey);
    const task = asTask(await send(client, skill("automation-health")));
    const read = await client.getTask({ tenant: "", id: task.id });
    expect(read.id).toBe(task.id);
    expect(read.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(resultOf(read).data.automationCount).toBe(0);

    const stranger = await agentClient((await newOrganization()).apiKey);
    await expect(stranger.getTask({ tenant: "", id: task.id })).rejects.toBeInstanceOf(TaskNotFoundError);
    await expect(stranger.cancelTask({ tenant: "", id: task.id, metadata: undefined })).rejects.toBeInstanceOf(
      TaskNotFoundError,
    );
    // Another credential of the same organization sees it.
    expect((await (await agentClient(org.memberToken)).getTask({ tenant: "", id: task.id })).id).toBe(task.id);
  });

  it("refuses to cancel a task that already finished (not cancelable)", async () => {
    const org = await newOrganization();
    const client = await agentClient(org.apiKey);
    const task = asTask(await send(client, skill("automation-health")));
    await expect(client.cancelTask({ tenant: "", id: task.id, metadata: undefined })).rejects.toBeInstanceOf(
      TaskNotCancelableError,
    );
  });

  it("refuses a follow-up message on a finished task, and on another organization's task", async () => {
    const org = await newOrganization();
    const client = await agentClient(org.apiKey);
    const task = asTask(await send(client, skill("automation-health")));
    await expect(send(client, skill("automation-health"), { taskId: task.id })).rejects.toThrow(/terminal state/);
    const stranger = await agentClient((await newOrganization()).apiKey);
    await expect(send(stranger, skill("automation-health"), { taskId: task.id })).rejects.toBeInstanceOf(
      TaskNotFoundError,
    );
  });

  it("speaks A2A 0.3: message/send, tasks/get and tasks/cancel with the 0.3 client", async () => {
    const org = await newOrganization();
    await createAutomation(org);
    const client = await legacyClient(org.apiKey);
    const task = asTask(await send(client, skill("automation-health")));
    expect(resultOf(task).data.automationCount).toBe(1);
    expect((await client.getTask({ tenant: "", id: task.id })).id).toBe(task.id);
    await expect(client.cancelTask({ tenant: "", id: task.id, metadata: undefined })).rejects.toBeInstanceOf(
      TaskNotCancelableError,
    );
    await expect(client.getTask({ tenant: "", id: randomUUID() })).rejects.toBeInstanceOf(TaskNotFoundError);
  });

  it("streams a skill's task with SendStreamingMessage (1.0) and message/stream (0.3), ending with the completed result", async () => {
    const org = await newOrganization();
    await createAutomation(org);
    for (const client of [await agentClient(org.apiKey), await legacyClient(org.apiKey)]) {
      const request: Message = {
        messageId: randomUUID(),
        contextId: "",
        taskId: "",
        role: Role.ROLE_USER,
        parts: skill("automation-health"),
        metadata: undefined,
        extensions: [],
        referenceTaskIds: [],
      };
      const events = [];
      for await (const event of client.sendMessageStream({
        tenant: "",
        message: request,
        configuration: undefined,
        metadata: undefined,
      }))
        events.push(event);
      expect(events.length).toBeGreaterThan(0);
      const last = events.at(-1)!.payload;
      expect(last?.$case).toBe("task");
      const task = last!.value as Task;
      expect(resultOf(task).data.automationCount).toBe(1);
      expect((await client.getTask({ tenant: "", id: task.id })).status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    }
  });

  it("answers a raw message/stream as server-sent events", async () => {
    const org = await newOrganization();
    const streamed = await rpc({ jsonrpc: "2.0", id: 8, method: "message/stream", params: { message } }, org.apiKey, {
      accept: "text/event-stream",
    });
    expect(streamed.status).toBe(200);
    expect(streamed.headers.get("content-type")).toMatch(/^text\/event-stream/);
    const events = eventsOf(streamed.body);
    expect(events.length).toBeGreaterThan(0);
    expect(events.every((event) => event.jsonrpc === "2.0" && event.id === 8 && event.result)).toBe(true);
    expect(events.at(-1).result).toMatchObject({ kind: "task", status: { state: "completed" } });
  });

  it("lists the organization's tasks with 1.0 ListTasks", async () => {
    const org = await newOrganization();
    const client = await agentClient(org.apiKey);
    const first = asTask(await send(client, skill("automation-health")));
    const second = asTask(await send(client, skill("summarize-performance")));
    await send(await agentClient((await newOrganization()).apiKey), skill("automation-health"));
    const listed = await client.listTasks({
      tenant: "",
      contextId: "",
      status: TaskState.TASK_STATE_UNSPECIFIED,
      pageSize: 1,
      pageToken: "",
      statusTimestampAfter: undefined,
    });
    expect(listed.totalSize).toBe(2);
    expect(listed.tasks).toHaveLength(1);
    const next = await client.listTasks({
      tenant: "",
      contextId: "",
      status: 0,
      pageSize: 1,
      pageToken: listed.nextPageToken,
      statusTimestampAfter: undefined,
    });
    expect([listed.tasks[0]!.id, next.tasks[0]!.id].sort()).toEqual([first.id, second.id].sort());
    expect(next.nextPageToken).toBe("");
  });
});

describe("A2A agent: JSON-RPC errors", () => {
  it("answers malformed JSON with a -32700 parse error (HTTP 200, id null)", async () => {
    const org = await newOrganization();
    const response = await rpc('{"jsonrpc": "2.0", "method": ', org.apiKey);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ jsonrpc: "2.0", id: null, error: { code: -32700, message: expect.any(String) } });
  });

  it("answers an invalid request object with -32600", async () => {
    const org = await newOrganization();
    for (const body of [
      { jsonrpc: "1.0", id: 1, method: "message/send", params: {} },
      { jsonrpc: "2.0", id: 2 },
      [],
      "42",
      { jsonrpc: "2.0", id: 1.5, method: "tasks/get" },
    ]) {
      const response = await rpc(body, org.apiKey);
      expect(response.status).toBe(200);
      expect(response.body.error.code).toBe(-32600);
    }
    expect((await rpc({ jsonrpc: "2.0", id: 2 }, org.apiKey)).body.id).toBe(2);
  });

  it("answers an unknown method with -32601, echoing the id", async () => {
    const org = await newOrganization();
    const response = await rpc({ jsonrpc: "2.0", id: "abc", method: "tasks/explode", params: {} }, org.apiKey);
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ jsonrpc: "2.0", id: "abc", error: { code: -32601 } });
  });

  it("answers invalid params with -32602", async () => {
    const org = await newOrganization();
    for (const body of [
      { jsonrpc: "2.0", id: 3, method: "message/send", params: [message] },
      { jsonrpc: "2.0", id: 4, method: "message/send", params: {} },
      { jsonrpc: "2.0", id: 5, method: "SendMessage" },
      { jsonrpc: "2.0", id: 6, method: "tasks/get", params: { id: "" } },
    ]) {
      const response = await rpc(body, org.apiKey);
      expect(response.status).toBe(200);
      expect(response.body).toMatchObject({ id: body.id, error: { code: -32602 } });
    }
  });

  it("answers a task id that does not exist with -32001", async () => {
    const org = await newOrganization();
    const missing = await rpc({ jsonrpc: "2.0", id: 7, method: "tasks/get", params: { id: randomUUID() } }, org.apiKey);
    expect(missing.body).toMatchObject({ id: 7, error: { code: -32001 } });
  });

  it("serves a raw 0.3 message/send with text and data parts in the result", async () => {
    const org = await newOrganization();
    const response = await rpc({ jsonrpc: "2.0", id: 9, method: "message/send", params: { message } }, org.apiKey);
    expect(response.status).toBe(200);
    expect(response.body.result).toMatchObject({ kind: "task", status: { state: "completed" } });
    const kinds = response.body.result.artifacts[0].parts.map((part: { kind: string }) => part.kind);
    expect(kinds).toEqual(["text", "data"]);
  });
});

describe("A2A agent: authentication", () => {
  it("answers a missing or invalid credential with a 401 problem and a Bearer challenge, before reading the body", async () => {
    const missing = await rpc("not json", null);
    expect(missing.status).toBe(401);
    expect(missing.headers.get("content-type")).toMatch(/^application\/problem\+json/);
    expect(missing.headers.get("www-authenticate")).toMatch(/^Bearer realm=/);
    const invalid = await rpc({ jsonrpc: "2.0", id: 1, method: "tasks/get", params: { id: "x" } }, "sk_not_a_key");
    expect(invalid.status).toBe(401);
    expect(invalid.headers.get("www-authenticate")).toMatch(/^Bearer .*error="invalid_token"/);
  });

  it(
    "counts against the organization's business partition and answers 429 problems over the limit",
    { timeout: 120_000 },
    async () => {
      const org = await newOrganization();
      // Fixed 60 s windows: start the burst early in a window so it is not split over two.
      const left = 60_000 - (Date.now() % 60_000);
      if (left < 45_000) await new Promise((resolve) => setTimeout(resolve, left + 250));
      const responses = await Promise.all(Array.from({ length: 310 }, () => rpc("{", org.apiKey)));
      const answered = responses.filter((response) => response.status === 200);
      expect(answered).toHaveLength(300);
      expect(answered[0]!.body.error.code).toBe(-32700);
      expect(answered[0]!.headers.get("ratelimit")).toMatch(/^"business";r=\d+;t=\d+$/);
      const limited = responses.filter((response) => response.status === 429);
      expect(limited).toHaveLength(10);
      expect(limited[0]!.headers.get("content-type")).toBe("application/problem+json");
      expect(limited[0]!.headers.get("retry-after")).toMatch(/^\d+$/);
      expect(limited[0]!.body).toMatchObject({ status: 429, title: "Too Many Requests" });
    },
  );

  it("answers a valid credential without agent:use with a 403 problem", async () => {
    const org = await newOrganization();
    const { apiKey } = await Organizations.issueApiKey(org.organizationId, {
      name: "reader",
      scopes: ["automations:read"],
    });
    const response = await rpc({ jsonrpc: "2.0", id: 1, method: "message/send", params: { message } }, apiKey);
    expect(response.status).toBe(403);
    expect(response.body).toMatchObject({ status: 403, title: "Forbidden" });
  });
});
