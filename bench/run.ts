import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { analyticsBench } from "#bench/analytics";
import { bundlesBench } from "#bench/bundles";
import { coldstartBench } from "#bench/coldstart";
import { costBench } from "#bench/cost";
import { dynamodbLocalBench } from "#bench/dynamodb-local";
import { hotOrgBench } from "#bench/hot-org";
import { automationsBench } from "#bench/automations";
import { dashboardBench } from "#bench/dashboard";
import { foundationBench } from "#bench/foundation";
import { messagingBench } from "#bench/messaging";
import { pacingBench } from "#bench/pacing";
import { intakeBench } from "#bench/intake";
import { webhooksBench } from "#bench/webhooks";
import { routingBench } from "#bench/routing";
import { inboxBench } from "#bench/inbox";
import { logger } from "#core/observability/index";
import * as Organizations from "#core/organizations/index";
import { turnQuietHoursOff } from "#local/organizations";
import { startLocalStack, type LocalStack } from "#local/start";

/** What every benchmark module receives: the running local stack and a fresh organization. */
export interface BenchContext {
  stack: LocalStack;
  baseUrl: string;
  organizationId: string;
  apiKey: string;
}

const benches: Record<string, (context: BenchContext) => Promise<void>> = {
  foundation: foundationBench,
  messaging: messagingBench,
  intake: intakeBench,
  analytics: analyticsBench,
  automations: automationsBench,
  dashboard: dashboardBench,
  webhooks: webhooksBench,
  cost: costBench,
  "hot-org": hotOrgBench,
  pacing: pacingBench,
  routing: routingBench,
  inbox: inboxBench,
};

/** Benchmarks that need no running stack (they bundle or compute offline). */
const standalone: Record<string, () => Promise<void>> = {
  coldstart: coldstartBench,
  bundles: bundlesBench,
  "dynamodb-local": dynamodbLocalBench,
};

/**
 * `npm run bench [-- name ...]`: starts the local stack in memory (the same
 * handlers, DynamoDB Local and SQS emulator as `npm start`) and runs each
 * benchmark against it. The rate limit is raised for the run (operators can do
 * the same per stage) so the figures measure the service, not the limiter.
 */
async function main(): Promise<void> {
  const selected = process.argv.slice(2).filter((name) => !name.startsWith("-"));
  for (const [name, bench] of Object.entries(standalone)) if (selected.includes(name)) await bench();
  // Only stack-free benchmarks asked for: no stack to start. With no names, every stack benchmark runs (the standalone ones are asked for by name).
  if (selected.length && selected.every((name) => name in standalone)) return;
  process.env.RATE_LIMIT_REQUESTS = String(1_000_000_000);
  // The cost bench counts calls with the SDK middleware (core/observability/call-count.ts); receipts come quickly.
  if (selected.includes("cost") || selected.includes("hot-org") || selected.includes("inbox")) {
    process.env.MEASURE_CALLS = "1";
    process.env.POWERTOOLS_METRICS_DISABLED = "true";
    logger.setLogLevel("ERROR");
    process.env.SIMULATOR_DELAY_SCALE ??= "0.05";
  }
  // The analytics bench counts the items one report reads, the routing bench the calls per lead; the middleware records nothing outside a measurement.
  if (selected.includes("analytics") || selected.includes("routing")) process.env.MEASURE_CALLS = "1";
  const stateDir = await mkdtemp(join(tmpdir(), "bench-"));
  const stack = await startLocalStack({
    inMemory: true,
    port: 0,
    stateDir,
    provision: false,
    optimizeFor: "throughput",
  });
  try {
    for (const [name, bench] of Object.entries(benches)) {
      // The call-counting benches and the three-minute pacing one run only when named.
      if (selected.length ? !selected.includes(name) : name === "cost" || name === "hot-org" || name === "pacing")
        continue;
      const { organization, apiKey } = await Organizations.create({ name: `Bench ${name}` });
      await turnQuietHoursOff(organization.id);
      await bench({ stack, baseUrl: stack.baseUrl, organizationId: organization.id, apiKey });
    }
  } finally {
    await stack.stop();
    await rm(stateDir, { recursive: true, force: true });
  }
}

await main();
