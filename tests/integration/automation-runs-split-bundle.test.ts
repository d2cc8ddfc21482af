import { execFile } from "node:child_process";
import { copyFileSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { promisify } from "node:util";
import type { SQSEvent } from "aws-lambda";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { bundle } from "#bench/coldstart";
import type { Action } from "#core/automations/definition";
import { LeadCreated } from "#core/leads/queue";
import { envelope } from "#core/queue/messages";
import { newId } from "#core/shared/ids";
import { consumers, environmentNames } from "#stacks/definitions";
import { phoneMetadataFile } from "#stacks/packaged-files";
import { chain, createAutomation, listRuns, readyToText } from "#tests/helpers/automations";
import { createLead, randomNumber } from "#tests/helpers/messaging";
import { newOrganization } from "#tests/helpers/stack";
import { startReceiver, type Receiver } from "#tests/helpers/webhooks";

/**
 * Every function is deployed with splitting (stacks/functions.ts): in the automation-runs consumer, each action kind's
 * implementation is a chunk its first step loads (core/automations/runs/actions.ts). This builds the consumer as SST's
 * build does for `nodejs.splitting` (the bench's `bundle`) and hands the built entry, in a fresh Node process, one SQS
 * batch of `lead.created` triggers whose runs begin with each action kind: each first step runs inline in the trigger
 * fan-out, so a chunk missing, misnamed or failing to load in plain Node fails here, not in Lambda.
 */

/** Imports the built entry as Lambda's Node runtime would, hands it the SQS event in the file named, prints its answer. */
const invoker = `
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
const { handler } = await import(process.env.SPLIT_ENTRY);
const deadline = Date.now() + 59000;
const context = { functionName: "automation-runs", awsRequestId: randomUUID(), getRemainingTimeInMillis: () => deadline - Date.now() };
console.log(JSON.stringify(await handler(JSON.parse(readFileSync(process.env.SPLIT_EVENT, "utf8")), context)));
process.exit(0);
`;

const dir = mkdtempSync(join(tmpdir(), "automation-runs-split-"));

/** The HttpRequest action's receiver, on loopback (the child is allowed private targets, as the local stack is). */
let receiver: Receiver;
beforeAll(async () => {
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver.close();
  rmSync(dir, { recursive: true, force: true });
});

/**
 * Every action module under core/automations/runs/actions/ (read from the folder, so a module added there is checked
 * too), and what only an action uses.
 */
const actionOnly = [
  ...readdirSync("core/automations/runs/actions")
    .filter((file) => file.endsWith(".ts"))
    .map((file) => `core/automations/runs/actions/${file}`),
  "core/automations/runs/egress.ts",
  "core/calls/placement.ts",
  "core/leads/assignment.ts",
  "core/leads/assign.ts",
  // The send itself: a step plans its first read from core/messaging/send-read.ts, the send action loads the rest.
  "core/messaging/messages.ts",
  "core/shared/phone.ts",
  "core/billing/index.ts",
  "core/billing/wallet-store.ts",
];

describe("the automation-runs consumer as deployed with splitting", () => {
  it("runs a first step of every action kind from the built entry, each kind's implementation from a chunk of its own", async () => {
    const consumer = consumers.find(({ queue }) => queue === "automationRuns")!;
    const handler = consumer.handler.replace(/\.handler$/, "");
    const entry = resolve(dir, `${handler}.mjs`);
    const built = await bundle(resolve(`${handler}.ts`), entry, { splitting: true });
    // No action's implementation is in what a cold start loads; each is in the build, beside the entry.
    const everywhere = Object.values(built.metafile.outputs).flatMap((output) => Object.keys(output.inputs));
    expect(actionOnly.filter((module) => !everywhere.includes(module))).toEqual([]);
    expect(actionOnly.filter((module) => module in built.coldInputs)).toEqual([]);
    expect(Object.keys(built.coldInputs).filter((input) => input.includes("node_modules/ipaddr.js/"))).toEqual([]);
    // Phone parsing comes with a send, and the definition's schemas with an automation's write, not with a step.
    expect(Object.keys(built.coldInputs).filter((input) => input.includes("node_modules/libphonenumber-js/"))).toEqual(
      [],
    );
    expect(
      Object.keys(built.coldInputs).filter((input) => input.startsWith("core/automations/definition/actions")),
    ).toEqual([]);
    expect(readdirSync(dirname(entry)).filter((file) => file.endsWith(".mjs")).length).toBeGreaterThan(4);

    const org = await newOrganization();
    await readyToText(org);
    // One lead, source and automation per action kind: the runs touch nothing in common, so none waits on another.
    // Every action kind of the definition (a kind added there is a type error here until it is run too).
    const kinds: Record<Action["type"], Record<string, unknown>> = {
      SendSms: { body: "Hello from a chunk" },
      SendMms: { body: "A picture from a chunk", mediaUrls: ["https://example.com/chunk.jpg"] },
      HttpRequest: { url: receiver.url, method: "POST" },
      UpdateLead: { fields: { "metadata.vertical": "split" } },
      AssignLead: { userId: org.userIds.agent },
      AddToSuppression: { reason: "Split bundle test" },
      PlaceCall: { connectTo: "+14155550123" },
      Wait: { durationSeconds: 3600 },
      Stop: {},
    };
    const cases = await Promise.all(
      Object.entries(kinds).map(async ([type, settings]) => {
        const sourceId = `split-${type}-${newId()}`;
        const lead = await createLead(org, randomNumber("212"));
        const automation = await createAutomation(
          org,
          chain({ type: "LeadCreated", settings: { sourceIds: [sourceId] } }, [{ id: "act", type, settings }]),
        );
        return { type, sourceId, leadId: lead.id, automationId: automation.id };
      }),
    );
    // The stack's own `lead.created` of each lead names no source, so only this batch starts these automations.
    const event: SQSEvent = {
      Records: cases.map(({ leadId, sourceId }) => ({
        messageId: newId(),
        receiptHandle: "local",
        body: JSON.stringify(
          envelope(LeadCreated, org.organizationId, { leadId, sourceId, complianceStatus: null }, newId()),
        ),
        attributes: { ApproximateReceiveCount: "1" } as never,
        messageAttributes: {},
        md5OfBody: "",
        eventSource: "aws:sqs",
        eventSourceARN: "",
        awsRegion: "us-east-1",
      })),
    };
    const eventFile = join(dir, "event.json");
    // The package as Lambda unpacks it: the phone metadata beside the build (copyFiles), read from the task root.
    copyFileSync(phoneMetadataFile.from, join(dir, phoneMetadataFile.to));
    writeFileSync(eventFile, JSON.stringify(event));
    // Asynchronously: this process answers the HttpRequest step meanwhile.
    const { stdout } = await promisify(execFile)(process.execPath, ["--input-type=module", "-e", invoker], {
      env: {
        ...process.env,
        ...inject("stackEnv"),
        [environmentNames.automationHttpAllowPrivate]: "true",
        LAMBDA_TASK_ROOT: dir,
        SPLIT_ENTRY: entry,
        SPLIT_EVENT: eventFile,
        NODE_OPTIONS: "",
      },
      encoding: "utf8",
      maxBuffer: 64 * 1024 * 1024,
    });
    // A failed record's log line (the consumer's logger writes JSON lines to stdout) says why.
    const lines = stdout.trim().split("\n");
    const failed = lines.filter((line) => line.includes('"queue record failed"'));
    expect(JSON.parse(lines.at(-1)!), failed.join("\n")).toEqual({ batchItemFailures: [] });

    // Each run's first step ran in that process, through its kind's chunk.
    const steps: Record<string, { run: any; step: any; leadId: string }> = {};
    for (const { type, automationId, leadId } of cases) {
      const [summary] = await listRuns(org, automationId);
      const run = (await org.request("GET", `/automations/${automationId}/runs/${summary.id}`)).body;
      steps[type] = { run, step: run.steps.find((step: any) => step.nodeId === "act"), leadId };
    }
    const message = await org.request("GET", `/messages/${steps.SendSms!.step.output.messageId}`);
    expect(message.body).toMatchObject({ leadId: steps.SendSms!.leadId, body: "Hello from a chunk" });
    const picture = await org.request("GET", `/messages/${steps.SendMms!.step.output.messageId}`);
    expect(picture.body).toMatchObject({ leadId: steps.SendMms!.leadId, body: "A picture from a chunk" });
    expect(steps.HttpRequest!.step).toMatchObject({ status: "Succeeded", output: { status: 200 } });
    expect(receiver.received.map(({ body }) => JSON.parse(body))).toEqual([
      expect.objectContaining({ runId: steps.HttpRequest!.run.id, stepId: "act" }),
    ]);
    const updated = await org.request("GET", `/leads/${steps.UpdateLead!.leadId}`);
    expect(updated.body.metadata.vertical).toBe("split");
    expect(steps.AssignLead!.step).toMatchObject({ status: "Succeeded" });
    const assigned = await org.request("GET", `/leads/${steps.AssignLead!.leadId}`);
    expect(assigned.body.assignedUserId).toBe(org.userIds.agent);
    expect(steps.AddToSuppression!.step).toMatchObject({ status: "Succeeded", output: { created: true } });
    const call = await org.request("GET", `/calls/${steps.PlaceCall!.step.output.callId}`);
    expect(call.body).toMatchObject({ leadId: steps.PlaceCall!.leadId, connectTo: "+14155550123" });
    expect(steps.Wait!.run).toMatchObject({ status: "Waiting", currentNodeId: "act" });
    expect(steps.Stop!.run).toMatchObject({ status: "Succeeded" });
  }, 180_000);
});
