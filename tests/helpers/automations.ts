import { expect } from "vitest";
import { addNumber } from "#tests/helpers/messaging";
import { waitForResource, type TestOrganization } from "#tests/helpers/stack";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** An organization ready to text at any hour: one number, quiet hours off. */
export async function readyToText(org: TestOrganization) {
  const number = await addNumber(org);
  const settings = await org.request("PUT", "/messaging/settings", {
    body: { quietHours: { start: "00:00", end: "00:00" } },
  });
  expect(settings.status).toBe(200);
  return number;
}

export async function createAutomation(org: TestOrganization, body: Record<string, unknown>) {
  const response = await org.request("POST", "/automations", { body: { enabled: true, ...body } });
  if (response.status !== 201)
    throw new Error(`automation not created: ${response.status} ${JSON.stringify(response.body)}`);
  return response.body as { id: string; version: number } & Record<string, any>;
}

/** A linear automation: one trigger, then the actions in order. */
export function chain(
  trigger: Record<string, unknown>,
  actions: Record<string, unknown>[],
  extra: Record<string, unknown> = {},
) {
  const ids = ["t", ...actions.map((action) => String(action.id))];
  return {
    name: `Chain ${Math.random().toString(36).slice(2, 8)}`,
    triggers: [{ id: "t", ...trigger }],
    actions,
    connections: ids.slice(1).map((id, index) => ({ id: `c${index}`, sourceNodeId: ids[index], targetNodeId: id })),
    ...extra,
  };
}

export async function listRuns(
  org: TestOrganization,
  automationId: string,
  body: Record<string, unknown> = {},
): Promise<any[]> {
  const items: any[] = [];
  let continuationToken: string | null = null;
  do {
    const response: { status: number; body: any } = await org.request(
      "POST",
      `/automations/${automationId}/runs/all/my`,
      {
        body: { pageSize: 100, ...body, ...(continuationToken ? { continuationToken } : {}) },
      },
    );
    if (response.status !== 200) throw new Error(`runs: ${response.status} ${JSON.stringify(response.body)}`);
    items.push(...response.body.items);
    continuationToken = response.body.continuationToken;
  } while (continuationToken);
  return items;
}

const finalStatuses = ["Succeeded", "Failed", "Skipped", "Canceled"];
const finished = (run: any) => finalStatuses.includes(run.status);

/** For `waitForAutomation`: the automation notes a finished run (its start noted `Pending`, and then its end). */
export const lastRunFinished = (automation: any) => finalStatuses.includes(automation.lastRunStatus);

/** Polls the automation's runs until `count` of them satisfy `done` (default: finished). */
export async function waitForRuns(
  org: TestOrganization,
  automationId: string,
  count = 1,
  done: (run: any) => boolean = finished,
  timeoutMs = 30_000,
): Promise<any[]> {
  const deadline = Date.now() + timeoutMs;
  let runs: any[] = [];
  while (Date.now() < deadline) {
    runs = await listRuns(org, automationId);
    const matching = runs.filter(done);
    if (matching.length >= count) return matching;
    await sleep(200);
  }
  throw new Error(
    `automation ${automationId}: ${count} run(s) not reached; runs: ${JSON.stringify(runs.map((run) => ({ status: run.status, error: run.error, steps: run.steps })))}`,
  );
}

/** Polls one run until `done` holds. */
export async function waitForRun(
  org: TestOrganization,
  automationId: string,
  runId: string,
  done: (run: any) => boolean = finished,
  timeoutMs = 30_000,
): Promise<any> {
  const deadline = Date.now() + timeoutMs;
  let last: any;
  while (Date.now() < deadline) {
    const response = await org.request("GET", `/automations/${automationId}/runs/${runId}`);
    last = response.body;
    if (response.status === 200 && done(last)) return last;
    await sleep(200);
  }
  throw new Error(`run ${runId} did not reach the expected state; last: ${JSON.stringify(last)}`);
}

export const smsStep = (run: any) => run.steps.find((step: any) => step.type === "SendSms" && step.output?.messageId);

/**
 * Polls `GET /automations/{id}` until `done` holds. A run's final status is stored first and noted on its automation
 * (`lastRunStatus`, `lastRunAt`) just after, so a test that has seen the run end waits for the note.
 */
export async function waitForAutomation(
  org: TestOrganization,
  automationId: string,
  done: (automation: any) => boolean,
  timeoutMs = 15_000,
): Promise<any> {
  return waitForResource(org, `/automations/${automationId}`, done, timeoutMs, `automation ${automationId}`);
}
