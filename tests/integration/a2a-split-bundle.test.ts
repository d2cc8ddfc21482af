import { execFileSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { afterAll, describe, expect, inject, it } from "vitest";
import { bundle } from "#bench/coldstart";
import { agentSkills } from "#core/agent/card";
import { toApiGatewayEvent } from "#local/apigateway";
import { a2aRoutes } from "#stacks/definitions";
import { newOrganization } from "#tests/helpers/stack";

/**
 * Every function is deployed with splitting (stacks/functions.ts): in `/a2a`, each skill is a chunk its first call
 * loads, and so is the SDK's A2A 0.3 transport. This builds the handler as SST's build does for `nodejs.splitting`
 * (the bench's `bundle`: SST's esbuild options, an output directory, `.mjs` chunks beside the entry) and runs the
 * built entry in a fresh Node process against the test stack: a 1.0 call first (no 0.3 transport loaded yet), then
 * one 0.3 call per skill, so a chunk missing, misnamed or failing to load in plain Node fails here, not in Lambda.
 */

/** Imports the built entry as Lambda's Node runtime would, answers each event of stdin's list, prints the answers. */
const invoker = `
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
const { handler } = await import(process.env.SPLIT_ENTRY);
const answers = [];
for (const event of JSON.parse(readFileSync(0, "utf8"))) {
  const deadline = Date.now() + 29000;
  const context = { functionName: "a2a-rpc", awsRequestId: randomUUID(), getRemainingTimeInMillis: () => deadline - Date.now() };
  answers.push(await handler(event, context));
}
console.log(JSON.stringify(answers));
process.exit(0);
`;

const dir = mkdtempSync(join(tmpdir(), "a2a-split-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A 0.3 `message/send` naming a skill with structured input, as the event API Gateway hands the function. */
function skillCall(token: string, skill: string, input: Record<string, unknown>) {
  return rpcCall(token, skill, "message/send", {
    message: {
      kind: "message",
      role: "user",
      messageId: randomUUID(),
      parts: [{ kind: "data", data: { skill, input } }],
    },
  });
}

/** One JSON-RPC call, as the event API Gateway hands the function. */
function rpcCall(token: string, id: string, method: string, params: Record<string, unknown>) {
  const body = JSON.stringify({ jsonrpc: "2.0", id, method, params });
  const headers = { host: "127.0.0.1", "content-type": "application/json", authorization: `Bearer ${token}` };
  return toApiGatewayEvent(
    {
      method: "POST",
      url: "/a2a",
      rawHeaders: Object.entries(headers).flat(),
      body: Buffer.from(body),
      sourceIp: "127.0.0.1",
      protocol: "HTTP/1.1",
    },
    "POST /a2a",
    undefined,
  );
}

describe("the /a2a function as deployed with splitting", () => {
  it("answers 1.0 from the entry and every skill from its own chunk through the 0.3 transport loaded on first use, imported by plain Node", async () => {
    const { handler } = a2aRoutes.agentRpc;
    const entry = resolve(dir, `${handler.replace(/\.handler$/, "")}.mjs`);
    const built = await bundle(resolve(`${handler.replace(/\.handler$/, "")}.ts`), entry, { splitting: true });
    // No skill is in what a cold start loads: each is a chunk of its own beside the entry.
    const skillModules = agentSkills.map(({ id }) => `core/agent/skills/${id}.ts`);
    expect(skillModules.filter((module) => module in built.coldInputs)).toEqual([]);
    // Nor the SDK's A2A 0.3 transport (its first 0.3 call loads it), nor Powertools Metrics (no cold path counts one).
    const coldPackages = Object.keys(built.coldInputs).filter(
      (input) => input.includes("/@a2a-js/sdk/dist/compat/") || input.includes("/@aws-lambda-powertools/metrics/"),
    );
    expect(coldPackages).toEqual([]);
    expect(readdirSync(dirname(entry)).filter((file) => file.endsWith(".mjs")).length).toBeGreaterThan(
      agentSkills.length,
    );

    const org = await newOrganization();
    const unknownLead = "01JABCDEFGHJKMNPQRSTVWXYZ0";
    const inputs: Record<string, Record<string, unknown>> = {
      "summarize-performance": { days: 7 },
      "find-leads": { search: "nobody" },
      "my-leads": {},
      "lead-timeline": { leadId: unknownLead },
      "send-message": { leadId: unknownLead, body: "Hi" },
      "automation-health": {},
    };
    // A 1.0 call first (the process has loaded no 0.3 transport yet), then every skill through 0.3.
    const events = [
      rpcCall(org.ownerToken, "list", "ListTasks", {}),
      ...agentSkills.map(({ id }) => skillCall(org.ownerToken, id, inputs[id]!)),
    ];
    const output = execFileSync(process.execPath, ["--input-type=module", "-e", invoker], {
      input: JSON.stringify(events),
      env: { ...process.env, ...inject("stackEnv"), SPLIT_ENTRY: entry, NODE_OPTIONS: "" },
      encoding: "utf8",
    });
    const [listed, ...answers] = JSON.parse(output.trim().split("\n").at(-1)!) as {
      statusCode: number;
      body: string;
    }[];
    expect(JSON.parse(listed!.body)).toEqual({
      jsonrpc: "2.0",
      id: "list",
      result: expect.objectContaining({ tasks: [] }),
    });
    const outcomes = answers.map((answer) => {
      const task = JSON.parse(answer.body).result;
      const error = task.status.message?.parts?.find((part: { kind: string }) => part.kind === "data")?.data?.error;
      return [task.metadata.skill, task.status.state, error ?? null];
    });
    // Each skill ran: the read skills answer, and the domain refuses the two naming an unknown lead (the messaging
    // pipeline names the field, as over HTTP: tests/http/a2a.test.ts).
    expect(outcomes).toEqual([
      ["summarize-performance", "completed", null],
      ["find-leads", "completed", null],
      ["my-leads", "completed", null],
      ["lead-timeline", "failed", { code: "not_found" }],
      [
        "send-message",
        "rejected",
        expect.objectContaining({
          code: "validation_failed",
          errors: [expect.objectContaining({ pointer: "/leadId" })],
        }),
      ],
      ["automation-health", "completed", null],
    ]);
  }, 180_000);
});
