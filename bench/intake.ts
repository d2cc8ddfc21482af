import { PutCommand } from "@aws-sdk/lib-dynamodb";
import autocannon from "autocannon";
import { systemActor } from "#core/auth/actor";
import { db, tableName } from "#core/db/client";
import { keys } from "#core/db/keys";
import * as Sources from "#core/sources/index";
import { newId } from "#core/shared/ids";
import { percentile, printTable } from "#bench/measure";
import type { BenchContext } from "#bench/run";

const seconds = () => Number(process.env.BENCH_SECONDS ?? 8);
const connections = 10;

let counter = 0;
/** A distinct valid lead each time, so processing does real work (no duplicates). */
function nextLead() {
  counter++;
  const line = String(counter % 10_000).padStart(4, "0");
  const exchange = 200 + (Math.floor(counter / 10_000) % 700);
  return {
    FirstName: "Bench",
    LastName: `Lead${counter}`,
    Phone: `+1201${exchange}${line}`,
    Email: `bench-${counter}@example.com`,
    Price: "1.25",
    UtmSource: "bench",
  };
}

/**
 * Lead intake on the local stack: leads accepted per second through GET and
 * POST /leads/intake (201 = durably stored), the raw DynamoDB Local PutItem
 * rate of a lead-sized item in the same run (the ceiling the intake write sits
 * on), and the time from the 201 to `Processed` (p50/p99) for a batch of leads.
 */
export async function intakeBench(context: BenchContext): Promise<void> {
  const { baseUrl, organizationId } = context;
  const { sourceId, apiKey } = await Sources.create(systemActor(organizationId), {
    name: "Bench source",
    duplicateWindowHours: 0,
  });
  const credentials = { "x-source-id": sourceId, "x-source-key": apiKey };

  const getRequest = (request: any) => ({
    ...request,
    path: `/leads/intake?${new URLSearchParams({ sourceId, apiKey, ...nextLead() })}`,
  });
  // Warm-up: JIT of the DynamoDB Local JVM and of the handler modules; not measured.
  await rawPutRate(organizationId, 2);
  await run("warm-up", `${baseUrl}/leads/intake`, getRequest, 2);

  const raw = await rawPutRate(organizationId);
  const get = await run("GET /leads/intake", `${baseUrl}/leads/intake`, getRequest);
  const post = await run("POST /leads/intake", `${baseUrl}/leads/intake`, (request) => ({
    ...request,
    method: "POST",
    headers: { ...credentials, "content-type": "application/json" },
    body: JSON.stringify(nextLead()),
  }));
  const latency = await timeToProcessed(baseUrl, credentials, context.apiKey);

  printTable("Lead intake (local stack)", [
    {
      name: "DynamoDB Local PutItem (lead-sized item, same run)",
      "per second": raw,
      "p50 ms": "-",
      "p99 ms": "-",
      "non-2xx": 0,
    },
    get,
    post,
  ]);
  printTable("Time from 201 to Processed", [
    {
      leads: latency.count,
      "p50 ms": latency.p50,
      "p99 ms": latency.p99,
      "max ms": latency.max,
      processed: latency.processed,
    },
  ]);
}

type Row = { name: string; "per second": number; "p50 ms": number; "p99 ms": number; "non-2xx": number };

async function run(name: string, url: string, setupRequest: (request: any) => any, duration = seconds()): Promise<Row> {
  const result = await autocannon({ url, connections, duration, requests: [{ setupRequest }] });
  return {
    name: `${name} (leads accepted)`,
    "per second": Math.round(result["2xx"] / (result.duration || duration)),
    "p50 ms": result.latency.p50,
    "p99 ms": result.latency.p99,
    "non-2xx": result.non2xx,
  };
}

/** PutItems of a lead-sized item at the same concurrency, straight to DynamoDB Local. */
async function rawPutRate(organizationId: string, duration = seconds()): Promise<number> {
  const item = { entity: "BenchItem", payload: JSON.stringify(nextLead()).repeat(12) };
  const deadline = Date.now() + duration * 1000;
  let puts = 0;
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (Date.now() < deadline) {
        await db().send(
          new PutCommand({
            TableName: tableName(),
            Item: { ...keys.lead(organizationId, `BENCH${newId()}`), ...item },
          }),
        );
        puts++;
      }
    }),
  );
  return Math.round(puts / duration);
}

/** Posts a batch at moderate concurrency, remembers when each 201 arrived, then compares with each lead's processedAt. */
async function timeToProcessed(baseUrl: string, credentials: Record<string, string>, apiKey: string) {
  const count = Number(process.env.BENCH_LATENCY_LEADS ?? 300);
  const accepted = new Map<string, number>();
  const queue = Array.from({ length: count }, () => nextLead());
  await Promise.all(
    Array.from({ length: 5 }, async () => {
      for (let lead = queue.pop(); lead; lead = queue.pop()) {
        const response = await fetch(`${baseUrl}/leads/intake`, {
          method: "POST",
          headers: { ...credentials, "content-type": "application/json" },
          body: JSON.stringify(lead),
        });
        const at = Date.now();
        if (response.status === 201) accepted.set(((await response.json()) as { id: string }).id, at);
      }
    }),
  );
  const headers = { authorization: `Bearer ${apiKey}` };
  const deadline = Date.now() + 120_000;
  const delays: number[] = [];
  const pending = new Set(accepted.keys());
  while (pending.size && Date.now() < deadline) {
    for (const id of [...pending]) {
      const lead = (await (await fetch(`${baseUrl}/leads/${id}`, { headers })).json()) as {
        processingStatus: string;
        processedAt: string | null;
      };
      if (lead.processingStatus === "Pending") continue;
      pending.delete(id);
      if (lead.processingStatus === "Processed" && lead.processedAt)
        delays.push(Date.parse(lead.processedAt) - accepted.get(id)!);
    }
    if (pending.size) await new Promise((resolve) => setTimeout(resolve, 250));
  }
  return {
    count: accepted.size,
    processed: delays.length,
    p50: percentile(delays, 50),
    p99: percentile(delays, 99),
    max: Math.max(...delays),
  };
}
