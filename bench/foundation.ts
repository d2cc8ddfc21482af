import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { load, printTable, type LoadResult } from "#bench/measure";
import type { BenchContext } from "#bench/run";
import { countRateLimits } from "#core/rate-limit/index";

/**
 * The HTTP chain's overhead: GET /automations/{id} and the agent card through
 * the local stack, beside a bare node:http server answering the same JSON on the
 * same machine in the same run (the ratio is the figure to watch).
 */
export async function foundationBench(context: BenchContext): Promise<void> {
  const headers = { authorization: `Bearer ${context.apiKey}`, "content-type": "application/json" };
  const created = await fetch(`${context.baseUrl}/automations`, {
    method: "POST",
    headers,
    body: JSON.stringify({ name: "Benchmark automation", description: "Speed to lead" }),
  });
  const automation = (await created.json()) as { id: string };
  const automationJson = JSON.stringify(
    await (await fetch(`${context.baseUrl}/automations/${automation.id}`, { headers })).json(),
  );
  const cardJson = await (await fetch(`${context.baseUrl}/.well-known/agent-card.json`)).text();

  const bare = createServer((request, response) => {
    response.writeHead(200, { "content-type": "application/json" });
    response.end(request.url?.startsWith("/automations") ? automationJson : cardJson);
  });
  await new Promise<void>((resolve) => bare.listen(0, "127.0.0.1", resolve));
  const bareUrl = `http://127.0.0.1:${(bare.address() as AddressInfo).port}`;

  const rows = [
    await load("GET /automations/{id} (service)", `${context.baseUrl}/automations/${automation.id}`, { headers }),
    await load("GET /automations/{id} (bare node:http)", `${bareUrl}/automations/${automation.id}`),
    await load("GET /.well-known/agent-card.json (service)", `${context.baseUrl}/.well-known/agent-card.json`),
    await load("GET /.well-known/agent-card.json (bare node:http)", `${bareUrl}/.well-known/agent-card.json`),
  ];
  bare.close();
  printTable(
    "Foundation: service vs bare node:http",
    rows.map((row) => ({ ...row })),
  );
  const ratio = (service: number, baseline: number) =>
    (rows[baseline]!.requestsPerSecond / Math.max(1, rows[service]!.requestsPerSecond)).toFixed(1);
  console.log(`bare/service throughput ratio: automation ${ratio(0, 1)}x, agent card ${ratio(2, 3)}x`);
  await rateLimitCost(`${context.baseUrl}/automations/${automation.id}`, headers);
}

/**
 * What the rate limit costs a warm GET (issue 27, goal ≥ 0.9×): the same route with the limiter counting and with
 * counting turned off in this process (the stack's handlers run here), alternated to spread the machine's noise.
 * DynamoDB Local is warmed first: its first ~25 s of load run slower (JIT) and would bias whichever run came first.
 */
async function rateLimitCost(url: string, headers: Record<string, string>): Promise<void> {
  await load("warm-up", url, { headers, durationSeconds: Number(process.env.BENCH_WARMUP_SECONDS ?? 25) });
  const runs: LoadResult[] = [];
  for (let round = 0; round < 2; round++) {
    for (const counting of [true, false]) {
      countRateLimits(counting);
      runs.push(await load(`GET /automations/{id} rate limit ${counting ? "counted" : "off"}`, url, { headers }));
    }
  }
  countRateLimits(true);
  printTable(
    "Rate limit: warm GET with and without it",
    runs.map((run) => ({ ...run })),
  );
  const mean = (name: string) =>
    runs.filter((run) => run.name.endsWith(name)).reduce((sum, run) => sum + run.requestsPerSecond, 0) / 2;
  console.log(
    `rate-limited/unlimited warm GET throughput: ${(mean("counted") / Math.max(1, mean("off"))).toFixed(2)}x (goal ≥ 0.9x)`,
  );
}
