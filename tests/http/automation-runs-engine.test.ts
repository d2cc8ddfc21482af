import { LeadCreated } from "#core/leads/queue";
import { AutomationStep } from "#core/automations/runs/queue";
import { CARRIED_LEAD_FRESH_MS } from "#core/automations/runs/triggers";
import { describe, expect, it } from "vitest";
import * as Billing from "#core/billing/index";
import { publish } from "#core/queue/messages";
import "#core/leads/index";
import "#core/automations/runs/queue";
import {
  createAutomation,
  listRuns,
  readyToText,
  smsStep,
  lastRunFinished,
  waitForAutomation,
  waitForRun,
  waitForRuns,
} from "#tests/helpers/automations";
import { waitForCall } from "#tests/helpers/calls";
import { createLead, randomNumber, textFrom, waitForMessage } from "#tests/helpers/messaging";
import { applyStackEnv, newOrganization, type TestOrganization } from "#tests/helpers/stack";
import { PutCommand } from "@aws-sdk/lib-dynamodb";
import { db, tableName } from "#core/db/client";
import { entities, keys } from "#core/db/keys";
import { newId } from "#core/shared/ids";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const sms = (id: string, body: string) => ({ id, type: "SendSms", settings: { body } });
const stop = (id: string) => ({ id, type: "Stop" });
const lead = async (org: TestOrganization, body: Record<string, unknown>) => {
  const response = await org.request("POST", "/leads", {
    body: { contact: { firstName: "Dana", phone: { number: randomNumber("212") } }, ...body },
  });
  expect(response.status).toBeLessThan(300);
  return response.body as { id: string };
};
const manual = async (org: TestOrganization, automationId: string, leadId: string) => {
  const response = await org.request("POST", `/automations/${automationId}/runs`, { body: { leadId } });
  expect(response.status).toBe(202);
  return waitForRun(org, automationId, response.body.id);
};

/** Manual → group "auto" (vertical is auto, mode as given) → a; group "other" (not auto) → b. */
function ifElse(mode: "all" | "any", extra: unknown[] = []) {
  return {
    name: "If/else",
    triggers: [{ id: "t", type: "Manual" }],
    conditionGroups: [
      {
        id: "auto",
        mode,
        conditions: [
          {
            id: "is-auto",
            type: "LeadField",
            operator: "Equals",
            settings: { field: "metadata.vertical", value: "auto" },
          },
          ...extra,
        ],
      },
      {
        id: "other",
        conditions: [
          {
            id: "not-auto",
            type: "LeadField",
            operator: "NotEquals",
            settings: { field: "metadata.vertical", value: "auto" },
          },
        ],
      },
    ],
    actions: [stop("a"), stop("b")],
    connections: [
      { id: "c1", sourceNodeId: "t", targetNodeId: "auto" },
      { id: "c2", sourceNodeId: "t", targetNodeId: "other" },
      { id: "c3", sourceNodeId: "auto", targetNodeId: "a" },
      { id: "c4", sourceNodeId: "other", targetNodeId: "b" },
    ],
  };
}

describe("automation runs: conditions and paths", () => {
  it("takes the branch whose condition group holds (if/else) and records both evaluations", async () => {
    const org = await newOrganization();
    const automation = await createAutomation(org, ifElse("all"));
    const auto = await manual(org, automation.id, (await lead(org, { metadata: { vertical: "Auto" } })).id);
    const home = await manual(org, automation.id, (await lead(org, { metadata: { vertical: "home" } })).id);
    expect(auto).toMatchObject({ status: "Succeeded", path: ["t", "auto", "a"] });
    expect(home).toMatchObject({ status: "Succeeded", path: ["t", "other", "b"] });
    const groups = home.steps.filter((step: any) => step.kind === "ConditionGroup");
    expect(groups.map((step: any) => [step.nodeId, step.status, step.output.passed])).toEqual([
      ["auto", "Skipped", false],
      ["other", "Succeeded", true],
    ]);
    expect(groups[0].output.conditions).toEqual([
      { id: "is-auto", type: "LeadField", operator: "Equals", result: false },
    ]);
  });

  it("combines conditions with all and any", async () => {
    const org = await newOrganization();
    const hasEmail = { id: "has-email", type: "LeadField", operator: "Exists", settings: { field: "contact.email" } };
    const all = await createAutomation(org, ifElse("all", [hasEmail]));
    const any = await createAutomation(org, ifElse("any", [hasEmail]));
    const autoWithoutEmail = (await lead(org, { metadata: { vertical: "auto" } })).id;
    expect((await manual(org, all.id, autoWithoutEmail)).path).toEqual(["t"]);
    expect((await manual(org, any.id, autoWithoutEmail)).path).toEqual(["t", "auto", "a"]);
  });

  it("ends Skipped when the first condition group fails before any action, without sending", async () => {
    const org = await newOrganization();
    await readyToText(org);
    const automation = await createAutomation(org, {
      name: "Only opted-in",
      triggers: [{ id: "t", type: "LeadCreated" }],
      conditionGroups: [
        {
          id: "consent",
          conditions: [{ id: "opted-in", type: "ConsentStatus", operator: "Equals", settings: { value: "OptedIn" } }],
        },
      ],
      actions: [sms("hello", "Hi")],
      connections: [
        { id: "c1", sourceNodeId: "t", targetNodeId: "consent" },
        { id: "c2", sourceNodeId: "consent", targetNodeId: "hello" },
      ],
    });
    await createLead(org, randomNumber("212"));
    const [run] = await waitForRuns(org, automation.id);
    expect(run).toMatchObject({ status: "Skipped", path: ["t"] });
    expect(run.steps.some((step: any) => step.kind === "Action")).toBe(false);
    expect((await waitForAutomation(org, automation.id, lastRunFinished)).lastRunStatus).toBe("Skipped");
  });

  it("passes through a disabled action to the next one", async () => {
    const org = await newOrganization();
    const automation = await createAutomation(org, {
      name: "Disabled step",
      triggers: [{ id: "t", type: "Manual" }],
      actions: [
        { id: "off", type: "UpdateLead", isEnabled: false, settings: { fields: { "metadata.vertical": "never" } } },
        stop("on"),
      ],
      connections: [
        { id: "c1", sourceNodeId: "t", targetNodeId: "off" },
        { id: "c2", sourceNodeId: "off", targetNodeId: "on" },
      ],
    });
    const run = await manual(org, automation.id, (await lead(org, {})).id);
    expect(run.path).toEqual(["t", "off", "on"]);
    expect(run.steps.map((step: any) => [step.nodeId, step.status])).toEqual([
      ["t", "Succeeded"],
      ["off", "Skipped"],
      ["on", "Succeeded"],
    ]);
  });

  it("saves an automation too large for its trigger entries to carry copies of it, and its triggers still start runs", async () => {
    const org = await newOrganization();
    // 18 disabled HttpRequest actions with 10,000-character bodies (~180 KB) and 20 triggers: a copy in every trigger
    // entry would put ~4.1 MB in the automation's transaction, past DynamoDB's 4 MB, and the save would fail.
    const hooks = Array.from({ length: 18 }, (_, index) => ({
      id: `h${index}`,
      type: "HttpRequest",
      isEnabled: false,
      settings: { url: "https://example.com/hook", body: `${index}`.padEnd(10_000, "x") },
    }));
    const triggers = Array.from({ length: 20 }, (_, index) => ({ id: `t${index}`, type: "LeadCreated" }));
    const nodes = [...hooks.map((hook) => hook.id), "end"];
    const automation = await createAutomation(org, {
      name: "Large",
      triggers,
      actions: [...hooks, stop("end")],
      connections: [
        ...triggers.map((trigger) => ({ id: `c-${trigger.id}`, sourceNodeId: trigger.id, targetNodeId: "h0" })),
        ...nodes.slice(1).map((node, index) => ({ id: `c-${node}`, sourceNodeId: nodes[index], targetNodeId: node })),
      ],
    });
    await createLead(org, randomNumber("212"));
    const [run] = await waitForRuns(org, automation.id, 1, (run) => run.status === "Succeeded");
    expect(run.path.at(-1)).toBe("end");
  });

  it("splits runs by weight (70/30 over 60 runs)", async () => {
    const org = await newOrganization();
    const automation = await createAutomation(org, {
      name: "Split test",
      triggers: [{ id: "t", type: "Manual" }],
      actions: [stop("a"), stop("b")],
      connections: [
        { id: "c1", sourceNodeId: "t", targetNodeId: "a", weight: 70 },
        { id: "c2", sourceNodeId: "t", targetNodeId: "b", weight: 30 },
      ],
    });
    const leadId = (await lead(org, {})).id;
    for (let i = 0; i < 60; i++)
      expect((await org.request("POST", `/automations/${automation.id}/runs`, { body: { leadId } })).status).toBe(202);
    const runs = await waitForRuns(org, automation.id, 60);
    const a = runs.filter((run) => run.path.at(-1) === "a").length;
    expect(a + runs.filter((run) => run.path.at(-1) === "b").length).toBe(60);
    // Binomial(60, 0.7): mean 42, sd 3.5; ±4.5 sd.
    expect(a).toBeGreaterThanOrEqual(26);
    expect(a).toBeLessThanOrEqual(58);
  });
});

describe("automation runs: waits, versions, idempotency", () => {
  it("waits as a delayed step, then sends", async () => {
    const org = await newOrganization();
    await readyToText(org);
    const automation = await createAutomation(org, {
      name: "Wait then send",
      triggers: [{ id: "t", type: "Manual" }],
      actions: [
        { id: "wait", type: "Wait", settings: { durationSeconds: 3 } },
        sms("later", "Still interested, {{contact.firstName}}?"),
      ],
      connections: [
        { id: "c1", sourceNodeId: "t", targetNodeId: "wait" },
        { id: "c2", sourceNodeId: "wait", targetNodeId: "later" },
      ],
    });
    const leadId = (await createLead(org, randomNumber("212"))).id;
    const started = await org.request("POST", `/automations/${automation.id}/runs`, { body: { leadId } });
    const waiting = await waitForRun(org, automation.id, started.body.id, (run) => run.status === "Waiting");
    expect(waiting).toMatchObject({ currentNodeId: "wait", waitingUntil: expect.any(String) });
    const run = await waitForRun(org, automation.id, started.body.id);
    expect(run.status).toBe("Succeeded");
    const [wait, send] = [run.steps.find((s: any) => s.nodeId === "wait"), smsStep(run)];
    expect(Date.parse(send.startedAt) - Date.parse(wait.startedAt)).toBeGreaterThanOrEqual(3000);
    expect(wait.output.until).toBe(waiting.waitingUntil);
    expect((await waitForMessage(org, send.output.messageId, (m) => m.status === "Delivered")).body).toBe(
      "Still interested, Dana?",
    );
  });

  it("finishes a run in flight on the version it started with, while new runs use the edit", async () => {
    const org = await newOrganization();
    await readyToText(org);
    const definition = (text: string) => ({
      name: "Versioned",
      enabled: true,
      triggers: [{ id: "t", type: "Manual" }],
      actions: [{ id: "wait", type: "Wait", settings: { durationSeconds: 3 } }, sms("text", text)],
      connections: [
        { id: "c1", sourceNodeId: "t", targetNodeId: "wait" },
        { id: "c2", sourceNodeId: "wait", targetNodeId: "text" },
      ],
    });
    const automation = await createAutomation(org, definition("Version one"));
    const leadId = (await createLead(org, randomNumber("212"))).id;
    const first = await org.request("POST", `/automations/${automation.id}/runs`, { body: { leadId } });
    await waitForRun(org, automation.id, first.body.id, (run) => run.status === "Waiting");
    const edited = await org.request("PUT", `/automations/${automation.id}`, {
      body: { ...definition("Version two"), version: 1 },
    });
    expect(edited.status).toBe(200);
    const second = await org.request("POST", `/automations/${automation.id}/runs`, { body: { leadId } });
    const [old, fresh] = [
      await waitForRun(org, automation.id, first.body.id),
      await waitForRun(org, automation.id, second.body.id),
    ];
    expect(old).toMatchObject({ status: "Succeeded", automationVersion: 1 });
    expect(fresh).toMatchObject({ status: "Succeeded", automationVersion: 2 });
    expect(smsStep(old).input.body).toBe("Version one");
    expect(smsStep(fresh).input.body).toBe("Version two");
  });

  it("a lead.created copy delivered late starts its run from the lead as stored, not the lead it carries", async () => {
    const org = await newOrganization();
    const byVertical = { ...ifElse("all"), name: "By vertical", triggers: [{ id: "t", type: "LeadCreated" }] };
    const automation = await createAutomation(org, byVertical);
    const created = await lead(org, { metadata: { vertical: "home" } });
    await waitForRuns(org, automation.id);
    // A copy carrying a lead whose vertical is not what is stored: trusted while fresh, read again once late.
    const stored = (await org.request("GET", `/leads/${created.id}`)).body;
    const carried = { ...stored, metadata: { ...stored.metadata, vertical: "auto" } };
    const data = { leadId: created.id, sourceId: null, complianceStatus: null, lead: carried };
    applyStackEnv();
    await publish(LeadCreated, org.organizationId, data, { id: `lead.created:${created.id}:fresh` });
    await publish(LeadCreated, org.organizationId, data, {
      id: `lead.created:${created.id}:late`,
      delaySeconds: Math.ceil(CARRIED_LEAD_FRESH_MS / 1000) + 1,
    });
    const runs = await waitForRuns(org, automation.id, 3, (run) => run.status === "Succeeded");
    const pathOf = (eventId: string) => runs.find((run) => run.trigger.eventId === eventId)?.path;
    expect(pathOf(`lead.created:${created.id}:fresh`)).toEqual(["t", "auto", "a"]);
    expect(pathOf(`lead.created:${created.id}:late`)).toEqual(["t", "other", "b"]);
  });

  it("a redelivered trigger and a repeated step message start no second run and send no second SMS", async () => {
    const org = await newOrganization();
    await readyToText(org);
    const automation = await createAutomation(org, {
      name: "Once",
      triggers: [{ id: "t", type: "LeadCreated" }],
      actions: [sms("hello", "Hello once")],
      connections: [{ id: "c", sourceNodeId: "t", targetNodeId: "hello" }],
    });
    const created = await createLead(org, randomNumber("212"));
    const [run] = await waitForRuns(org, automation.id);
    const data = { leadId: created.id, sourceId: null, complianceStatus: null };
    await publish(LeadCreated, org.organizationId, data, { id: `lead.created:${created.id}` });
    await publish(LeadCreated, org.organizationId, data, { id: `lead.created:${created.id}` });
    await publish(AutomationStep, org.organizationId, {
      automationId: automation.id,
      runId: run.id,
      seq: 1,
      attempt: 0,
    });
    await sleep(2500);
    expect(await listRuns(org, automation.id)).toHaveLength(1);
    const again = await waitForRun(org, automation.id, run.id);
    expect(again.steps).toEqual(run.steps);
    const conversation = (await org.request("POST", "/conversations/all/my", { body: {} })).body.items[0];
    const messages = await org.request("POST", "/events/all/my", {
      body: { pageSize: 100, filters: [{ field: "eventType", value: "MessageAccepted" }] },
    });
    expect(messages.status).toBe(200);
    expect(messages.body.items.filter((event: any) => event.conversationId === conversation.id)).toHaveLength(1);
  });

  it("a trigger claimed by an attempt that stopped before storing its run gets that run, with the claimed id, once", async () => {
    const org = await newOrganization();
    await readyToText(org);
    const automation = await createAutomation(org, {
      name: "Claimed",
      triggers: [{ id: "t", type: "LeadCreated" }],
      actions: [sms("hello", "Hello claimed")],
      connections: [{ id: "c", sourceNodeId: "t", targetNodeId: "hello" }],
    });
    const created = await createLead(org, randomNumber("212"));
    await waitForRuns(org, automation.id);
    // What an attempt leaves when it stops between its two puts: the claim on the trigger event, naming a run never stored.
    applyStackEnv();
    const eventId = `lead.created:${created.id}:interrupted`;
    const claimedRunId = newId();
    await db().send(
      new PutCommand({
        TableName: tableName(),
        Item: {
          ...keys.automationRunClaim(org.organizationId, automation.id, eventId),
          entity: entities.automationRunClaim,
          runId: claimedRunId,
          createdAt: new Date().toISOString(),
        },
      }),
    );
    const data = { leadId: created.id, sourceId: null, complianceStatus: null };
    await publish(LeadCreated, org.organizationId, data, { id: eventId });
    await publish(LeadCreated, org.organizationId, data, { id: eventId });
    const finished = await waitForRun(org, automation.id, claimedRunId);
    expect(finished).toMatchObject({ id: claimedRunId, status: "Succeeded" });
    await sleep(1500);
    expect((await listRuns(org, automation.id)).map((run) => run.id).filter((id) => id === claimedRunId)).toHaveLength(
      1,
    );
    expect(await listRuns(org, automation.id)).toHaveLength(2);
  });

  it("disabling cancels waiting runs and stops new ones", async () => {
    const org = await newOrganization();
    await readyToText(org);
    const body = {
      name: "Long wait",
      enabled: true,
      triggers: [{ id: "t", type: "LeadCreated" }],
      actions: [{ id: "wait", type: "Wait", settings: { durationSeconds: 3600 } }, sms("late", "Too late")],
      connections: [
        { id: "c1", sourceNodeId: "t", targetNodeId: "wait" },
        { id: "c2", sourceNodeId: "wait", targetNodeId: "late" },
      ],
    };
    const automation = await createAutomation(org, body);
    await createLead(org, randomNumber("212"));
    const [waiting] = await waitForRuns(org, automation.id, 1, (run) => run.status === "Waiting");
    expect(
      (await org.request("PUT", `/automations/${automation.id}`, { body: { ...body, enabled: false } })).status,
    ).toBe(200);
    const canceled = await waitForRun(org, automation.id, waiting.id, (run) => run.status === "Canceled");
    expect(canceled).toMatchObject({ error: "The automation was disabled.", waitingUntil: null });
    expect(canceled.steps.at(-1)).toMatchObject({ nodeId: "wait", status: "Canceled" });
    await createLead(org, randomNumber("212"));
    await sleep(2000);
    expect(await listRuns(org, automation.id)).toHaveLength(1);
  });
});

describe("automation runs: failures, retries and billing", () => {
  it("a send blocked by an empty wallet ends Blocked with the billing status; retry after a top-up sends a new message", async () => {
    const org = await newOrganization();
    await readyToText(org);
    const automation = await createAutomation(org, {
      name: "Paid text",
      triggers: [{ id: "t", type: "Manual" }],
      actions: [sms("hello", "Hello")],
      connections: [{ id: "c", sourceNodeId: "t", targetNodeId: "hello" }],
    });
    const leadId = (await createLead(org, randomNumber("212"))).id;
    await Billing.setSuspended(org.organizationId, true);
    const failed = await manual(org, automation.id, leadId);
    expect(failed).toMatchObject({ status: "Failed", error: expect.stringContaining("Blocked") });
    // Refused by Messages.send's wallet check: no message was stored for the blocked step.
    const blocked = failed.steps.find((step: any) => step.nodeId === "hello");
    expect(blocked).toMatchObject({
      status: "Blocked",
      output: { status: "Blocked", billingStatus: "WalletSuspended" },
    });
    expect(blocked.output.messageId).toBeUndefined();
    await Billing.setSuspended(org.organizationId, false);
    const retried = await org.request("POST", `/automations/${automation.id}/runs/${failed.id}/retry`);
    expect(retried.status).toBe(202);
    const done = await waitForRun(org, automation.id, failed.id, (run) => run.status === "Succeeded");
    expect(done.retryCount).toBe(1);
    const sends = done.steps.filter((step: any) => step.nodeId === "hello");
    expect(sends.map((step: any) => step.status)).toEqual(["Blocked", "Succeeded"]);
    expect(sends[1].output.messageId).not.toBe(sends[0].output.messageId);
    expect(done.steps.filter((step: any) => step.kind === "Trigger")).toHaveLength(1);
    expect((await org.request("POST", `/automations/${automation.id}/runs/${failed.id}/retry`)).status).toBe(409);
  });

  it("answers validation problems with pointers, and 404 across organizations", async () => {
    const org = await newOrganization();
    const other = await newOrganization();
    const automation = await createAutomation(org, {
      name: "Any",
      triggers: [{ id: "t", type: "Manual" }],
      actions: [stop("s")],
      connections: [{ id: "c", sourceNodeId: "t", targetNodeId: "s" }],
    });
    const typed = await org.request("POST", `/automations/${automation.id}/runs`, { body: { leadId: 5, extra: true } });
    expect(typed.status).toBe(400);
    expect(typed.body.errors.map((error: any) => error.pointer).sort()).toEqual(["/extra", "/leadId"]);
    const unknown = await org.request("POST", `/automations/${automation.id}/runs`, {
      body: { leadId: "01NOSUCHLEAD" },
    });
    expect(unknown.status).toBe(400);
    expect(unknown.body.errors).toEqual([{ pointer: "/leadId", detail: "Lead 01NOSUCHLEAD was not found." }]);
    const trigger = await org.request("POST", `/automations/${automation.id}/runs`, {
      body: { leadId: (await lead(org, {})).id, triggerId: "ghost" },
    });
    expect(trigger.body.errors[0].pointer).toBe("/triggerId");
    const paging = await org.request("POST", `/automations/${automation.id}/runs/all/my`, {
      body: { filters: [{ field: "colour", value: "x" }] },
    });
    expect(paging.status).toBe(400);
    expect(paging.body.errors[0].pointer).toBe("/filters/0/field");
    const settings = await org.request("POST", "/automations", {
      body: {
        name: "Bad",
        triggers: [{ id: "t", type: "Manual" }],
        actions: [{ id: "w", type: "Wait", settings: {} }],
      },
    });
    expect(settings.status).toBe(400);
    expect(settings.body.errors.map((error: any) => error.pointer)).toEqual(["/actions/0/settings"]);
    const graph = await org.request("POST", "/automations", {
      body: {
        name: "Bad",
        triggers: [{ id: "t", type: "Manual" }],
        actions: [stop("s")],
        connections: [{ id: "c", sourceNodeId: "t", targetNodeId: "ghost" }],
      },
    });
    expect(graph.status).toBe(400);
    expect(graph.body.errors.map((error: any) => error.pointer)).toEqual(
      expect.arrayContaining(["/connections/0/targetNodeId", "/actions/0"]),
    );
    const run = await manual(org, automation.id, (await lead(org, {})).id);
    expect((await other.request("GET", `/automations/${automation.id}/runs/${run.id}`)).status).toBe(404);
    expect((await other.request("POST", `/automations/${automation.id}/runs/all/my`, { body: {} })).status).toBe(404);
    expect(
      (await other.request("POST", `/automations/${automation.id}/runs`, { body: { leadId: run.leadId } })).status,
    ).toBe(404);
    expect((await org.request("GET", `/automations/${automation.id}/runs/01NOSUCHRUN`)).status).toBe(404);
  });

  it("pages runs newest first and filters them by status", async () => {
    const org = await newOrganization();
    const automation = await createAutomation(org, {
      name: "Many",
      triggers: [{ id: "t", type: "Manual" }],
      actions: [stop("s")],
      connections: [{ id: "c", sourceNodeId: "t", targetNodeId: "s" }],
    });
    const leadId = (await lead(org, {})).id;
    for (let i = 0; i < 5; i++) await org.request("POST", `/automations/${automation.id}/runs`, { body: { leadId } });
    await waitForRuns(org, automation.id, 5);
    const first = await org.request("POST", `/automations/${automation.id}/runs/all/my`, {
      body: { pageSize: 2, includeCount: true },
    });
    expect(first.body).toMatchObject({ pageSize: 2, totalCount: 5, continuationToken: expect.any(String) });
    const all = await listRuns(org, automation.id, { pageSize: 2 });
    expect(all.map((run) => run.createdAt)).toEqual([...all.map((run) => run.createdAt)].sort().reverse());
    expect(new Set(all.map((run) => run.id)).size).toBe(5);
    expect(await listRuns(org, automation.id, { filters: [{ field: "status", value: "Failed" }] })).toHaveLength(0);
    // finishedAt order (in memory within the read budget): unfinished first, the id breaking ties.
    const byFinished = await listRuns(org, automation.id, {
      pageSize: 2,
      orderBy: [{ field: "finishedAt", direction: "asc" }],
    });
    const finishedOrder = [...byFinished].sort(
      (a, b) => (a.finishedAt ?? "").localeCompare(b.finishedAt ?? "") || (a.id < b.id ? -1 : 1),
    );
    expect(byFinished.map((run) => run.id)).toEqual(finishedOrder.map((run) => run.id));
    expect(new Set(byFinished.map((run) => run.id))).toEqual(new Set(all.map((run) => run.id)));
  });
});

describe("automation runs: the other actions", () => {
  it("speed to lead: a reply during the wait stops the follow-up (HasReplied)", async () => {
    const org = await newOrganization();
    const number = await readyToText(org);
    const automation = await createAutomation(org, {
      name: "Follow up unless replied",
      triggers: [{ id: "t", type: "LeadCreated" }],
      conditionGroups: [
        {
          id: "no-reply",
          conditions: [{ id: "quiet", type: "HasReplied", operator: "Equals", settings: { value: false } }],
        },
      ],
      actions: [
        sms("first", "Hi {{contact.firstName}}!"),
        { id: "wait", type: "Wait", settings: { durationSeconds: 10 } },
        sms("again", "Still there?"),
      ],
      connections: [
        { id: "c1", sourceNodeId: "t", targetNodeId: "first" },
        { id: "c2", sourceNodeId: "first", targetNodeId: "wait" },
        { id: "c3", sourceNodeId: "wait", targetNodeId: "no-reply" },
        { id: "c4", sourceNodeId: "no-reply", targetNodeId: "again" },
      ],
    });
    const [replying, silent] = [randomNumber("212"), randomNumber("212")];
    const replyingLead = await createLead(org, replying);
    await createLead(org, silent);
    // The reply must land while the replying lead's run waits: send it as soon as that run waits (waiting for both
    // runs first let a slow second run eat the first one's wait on a busy machine), and give the wait some margin.
    const [waiting] = await waitForRuns(
      org,
      automation.id,
      1,
      (run) => run.status === "Waiting" && run.leadId === replyingLead.id,
    );
    expect(waiting).toMatchObject({ currentNodeId: "wait", waitingUntil: expect.any(String) });
    await textFrom(replying, number.phoneNumber, "Yes please call me");
    const runs = await waitForRuns(org, automation.id, 2);
    const paths = runs.map((run) => run.path.join(" "));
    expect(paths.sort()).toEqual(["t first wait", "t first wait no-reply again"]);
    expect(runs.every((run) => run.status === "Succeeded")).toBe(true);
  });

  it("sends MMS with media, adds the lead to the suppression list and places a call", async () => {
    const org = await newOrganization();
    await readyToText(org);
    const phone = randomNumber("212");
    const leadId = (await createLead(org, phone)).id;
    const automation = await createAutomation(org, {
      name: "Other actions",
      triggers: [{ id: "t", type: "Manual" }],
      actions: [
        {
          id: "mms",
          type: "SendMms",
          settings: { body: "Your quote, {{contact.firstName}}", mediaUrls: ["https://cdn.example.com/quote.png"] },
        },
        { id: "call", type: "PlaceCall", settings: { connectTo: "+14155550123" } },
        { id: "suppress", type: "AddToSuppression", settings: { reason: "Asked not to be contacted" } },
      ],
      connections: [
        { id: "c1", sourceNodeId: "t", targetNodeId: "mms" },
        { id: "c2", sourceNodeId: "mms", targetNodeId: "call" },
        { id: "c3", sourceNodeId: "call", targetNodeId: "suppress" },
      ],
    });
    const run = await manual(org, automation.id, leadId);
    expect(run).toMatchObject({ status: "Succeeded", path: ["t", "mms", "call", "suppress"] });
    const [mms, call, suppress] = run.steps.slice(1);
    const message = await waitForMessage(org, mms.output.messageId, (m) => m.status === "Delivered");
    expect(message).toMatchObject({
      channel: "Mms",
      body: "Your quote, Dana",
      media: [{ url: "https://cdn.example.com/quote.png", contentType: "image/png" }],
    });
    const placed = await org.request("GET", `/calls/${call.output.callId}`);
    expect(placed.status).toBe(200);
    expect(placed.body).toMatchObject({
      leadId,
      toPhoneNumber: phone,
      direction: "Outbound",
      connectTo: "+14155550123",
      ringSeconds: 30,
    });
    // The agent is rung first; +1 415 555 0123 is the simulator's failing line (scenario 23), so the lead is never dialed.
    const bridged = await waitForCall(org, call.output.callId);
    expect(bridged).toMatchObject({
      status: "Failed",
      statusReason: "The business side (+14155550123) was not reached: The call could not be connected. (31005)",
      billingStatus: "Released",
      connectAnsweredAt: null,
    });
    expect(suppress.output).toEqual({ phoneNumber: phone, created: true });
    const suppressions = await org.request("POST", "/suppressions/all/my", { body: {} });
    expect(suppressions.body.items).toEqual([
      expect.objectContaining({ phoneNumber: phone, reason: "Manual", note: "Asked not to be contacted", leadId }),
    ]);
  });
});
