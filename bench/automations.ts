import { percentile, printTable } from "#bench/measure";
import type { BenchContext } from "#bench/run";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

type Run = {
  id: string;
  status: string;
  createdAt: string;
  finishedAt: string | null;
  steps: { type: string; output: Record<string, unknown> | null }[];
};

/**
 * Automations on the local stack with the carrier simulator:
 * - speed to lead: leads posted one at a time to a LeadCreated → SendSms automation, each timed from the lead's
 *   `createdAt` to its first SMS's `sendingStartedAt` (handed to the carrier) and `deliveredAt`, median and p90;
 * - runs completed per second: BENCH_RUNS manual runs of a SendSms automation started 10 at a time, from the first
 *   start until every run is Succeeded (each run: trigger step, send step, carrier hand-off check).
 */
export async function automationsBench(context: BenchContext): Promise<void> {
  const headers = { authorization: `Bearer ${context.apiKey}`, "content-type": "application/json" };
  const api = async <T = any>(method: string, path: string, body?: unknown): Promise<T> => {
    const response = await fetch(`${context.baseUrl}${path}`, {
      method,
      headers,
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    if (response.status >= 300) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
    return (response.status === 204 ? undefined : await response.json()) as T;
  };
  await api("POST", "/phone-numbers", { phoneNumber: "+12125550998", friendlyName: "Bench automations" });
  await api("PUT", "/messaging/settings", { quietHours: { start: "00:00", end: "00:00" } });
  const definition = (name: string, type: string) => ({
    name,
    enabled: true,
    triggers: [{ id: "t", type }],
    actions: [
      {
        id: "text",
        type: "SendSms",
        settings: { body: "Hi {{contact.firstName|there}}, thanks for your request! When can we call?" },
      },
    ],
    connections: [{ id: "c", sourceNodeId: "t", targetNodeId: "text" }],
  });
  const speed = await api<{ id: string }>("POST", "/automations", definition("Speed to lead", "LeadCreated"));

  const samples = Number(process.env.BENCH_LEADS ?? 30);
  const toSending: number[] = [];
  const toDelivered: number[] = [];
  for (let index = 0; index < samples; index++) {
    const lead = await api<{ id: string; createdAt: string }>("POST", "/leads", {
      contact: { firstName: "Bench", phone: { number: `+1212${4000000 + index}` } },
    });
    const messageId = await firstSmsOf(api, speed.id, lead.id);
    for (let attempt = 0; attempt < 1000; attempt++) {
      const message = await api<{ status: string; sendingStartedAt?: string; deliveredAt?: string }>(
        "GET",
        `/messages/${messageId}`,
      );
      if (message.deliveredAt && message.sendingStartedAt) {
        toSending.push(Date.parse(message.sendingStartedAt) - Date.parse(lead.createdAt));
        toDelivered.push(Date.parse(message.deliveredAt) - Date.parse(lead.createdAt));
        break;
      }
      await sleep(10);
    }
  }
  await api("PUT", `/automations/${speed.id}`, { ...definition("Speed to lead", "LeadCreated"), enabled: false });

  const throughput = await api<{ id: string }>("POST", "/automations", definition("Throughput", "Manual"));
  const lead = await api<{ id: string }>("POST", "/leads", {
    contact: { firstName: "Load", phone: { number: "+13125550123" } },
  });
  const total = Number(process.env.BENCH_RUNS ?? 200);
  const started = Date.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: 10 }, async () => {
      while (next < total) {
        next++;
        await api("POST", `/automations/${throughput.id}/runs`, { leadId: lead.id });
      }
    }),
  );
  const accepted = Date.now();
  let succeeded = 0;
  let lastFinished = started;
  while (Date.now() - started < 300_000) {
    const runs = await allRuns(api, throughput.id);
    const done = runs.filter((run) => run.status === "Succeeded");
    succeeded = done.length;
    if (runs.filter((run) => ["Succeeded", "Failed", "Skipped", "Canceled"].includes(run.status)).length >= total) {
      lastFinished = Math.max(...done.map((run) => Date.parse(run.finishedAt ?? run.createdAt)));
      break;
    }
    await sleep(250);
  }
  const seconds = (lastFinished - started) / 1000;
  printTable("Automations: speed to lead and runs completed per second", [
    { name: "lead created → first SMS handed to carrier, median ms", value: Math.round(percentile(toSending, 50)) },
    { name: "lead created → first SMS handed to carrier, p90 ms", value: Math.round(percentile(toSending, 90)) },
    { name: "lead created → first SMS delivered, median ms", value: Math.round(percentile(toDelivered, 50)) },
    { name: "speed-to-lead samples", value: toSending.length },
    {
      name: `runs started (POST /automations/{id}/runs, 10 at a time) per second`,
      value: Math.round(total / ((accepted - started) / 1000)),
    },
    { name: "runs completed per second (start → all Succeeded)", value: Math.round((succeeded / seconds) * 10) / 10 },
    { name: "runs Succeeded / started", value: `${succeeded} / ${total}` },
  ]);
}

type Api = <T = any>(method: string, path: string, body?: unknown) => Promise<T>;

async function firstSmsOf(api: Api, automationId: string, leadId: string): Promise<string> {
  for (let attempt = 0; attempt < 2000; attempt++) {
    const page = await api<{ items: Run[] }>("POST", `/automations/${automationId}/runs/all/my`, {
      filters: [{ field: "leadId", value: leadId }],
    });
    const messageId = page.items[0]?.steps.find((step) => step.type === "SendSms" && step.output?.messageId)?.output
      ?.messageId;
    if (typeof messageId === "string") return messageId;
    await sleep(10);
  }
  throw new Error(`no SMS for lead ${leadId}`);
}

async function allRuns(api: Api, automationId: string): Promise<Run[]> {
  const runs: Run[] = [];
  let continuationToken: string | null = null;
  do {
    const page: { items: Run[]; continuationToken: string | null } = await api(
      "POST",
      `/automations/${automationId}/runs/all/my`,
      { pageSize: 100, ...(continuationToken ? { continuationToken } : {}) },
    );
    runs.push(...page.items);
    continuationToken = page.continuationToken;
  } while (continuationToken);
  return runs;
}
