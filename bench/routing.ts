import { systemActor } from "#core/auth/actor";
import * as Leads from "#core/leads/index";
import { startMeasuring, type Measurement } from "#core/observability/call-count";
import * as Routing from "#core/routing/index";
import * as Sources from "#core/sources/index";
import * as Users from "#core/users/index";
import { percentile, printTable } from "#bench/measure";
import type { BenchContext } from "#bench/run";

const leadCount = () => Number(process.env.BENCH_ROUTING_LEADS ?? 1000);
const warmUpCount = () => Number(process.env.BENCH_ROUTING_WARMUP ?? 200);
const agentCount = 20;
const connections = 10;

/**
 * Routing on the local stack (issue 28): `leadCount` leads posted to intake by `connections` clients, routed by one
 * round-robin rule over 20 agents. A first round of `warmUpCount` leads through another rule warms DynamoDB Local's
 * JIT and the handlers and is not reported. Reports assignments per second (first POST to last assignment),
 * intake-to-assigned (the lead's createdAt to its assignedAt) p50/p99, whether the split is exact, and the DynamoDB
 * calls and write units per lead of the whole intake-process-route path, and of routing's own items.
 */
export async function routingBench(context: BenchContext): Promise<void> {
  const { baseUrl, organizationId } = context;
  const actor = systemActor(organizationId);
  const agents = await Promise.all(
    Array.from({ length: agentCount }, (_, index) =>
      Users.add(organizationId, {
        email: `bench-agent-${index}-${organizationId}@example.com`,
        name: `Agent ${index}`,
        role: "agent",
      }),
    ),
  );
  const pool = agents.map((agent) => agent.id);
  const warmUp = await Sources.create(actor, { name: "Routing bench warm-up", duplicateWindowHours: 0 });
  const measured = await Sources.create(actor, { name: "Routing bench", duplicateWindowHours: 0 });
  await Routing.replace(actor, {
    agentsSeeAllLeads: true,
    agentsMayClaim: false,
    fallback: "unassigned",
    agents: [],
    rules: [
      { id: "warm-up", name: null, conditions: { sourceIds: [warmUp.sourceId] }, pool, strategy: "roundRobin" },
      { id: "bench", name: null, conditions: { sourceIds: [measured.sourceId] }, pool, strategy: "roundRobin" },
    ],
  });

  await routeLeads(baseUrl, organizationId, warmUp, warmUpCount(), 0);
  const measurement = process.env.MEASURE_CALLS === "1" ? startMeasuring() : undefined;
  const run = await routeLeads(baseUrl, organizationId, measured, leadCount(), 100_000);
  const { assigned, started, ids } = run;
  const latencies = assigned.map((lead) => Date.parse(lead.assignedAt!) - Date.parse(lead.createdAt));
  const lastAssigned = Math.max(...assigned.map((lead) => Date.parse(lead.assignedAt!)));
  const perAgent = Object.values(
    assigned.reduce<Record<string, number>>(
      (counts, lead) => ({ ...counts, [lead.assignedUserId!]: (counts[lead.assignedUserId!] ?? 0) + 1 }),
      {},
    ),
  );

  printTable(
    `Routing: ${ids.length} leads, one round-robin rule over ${agentCount} agents (local stack, after ${warmUpCount()} warm-up leads)`,
    [
      {
        assigned: assigned.length,
        "assignments/s": Math.round((assigned.length / (lastAssigned - started)) * 1000),
        "intake→assigned p50 ms": percentile(latencies, 50),
        "intake→assigned p99 ms": percentile(latencies, 99),
        "per agent (min-max)": `${Math.min(...perAgent)}-${Math.max(...perAgent)}`,
        ...(measurement ? callsPerLead(measurement, ids.length) : {}),
      },
    ],
  );
}

/** Posts `count` leads to the source and waits (at most 10 minutes) until each is assigned. */
async function routeLeads(
  baseUrl: string,
  organizationId: string,
  source: { sourceId: string; apiKey: string },
  count: number,
  phoneOffset: number,
) {
  const ids: string[] = [];
  let next = 0;
  const started = Date.now();
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (next < count) {
        const index = phoneOffset + next++;
        const phone = `+1202${String(200 + Math.floor(index / 10_000))}${String(index % 10_000).padStart(4, "0")}`;
        const response = await fetch(
          `${baseUrl}/leads/intake?${new URLSearchParams({ sourceId: source.sourceId, apiKey: source.apiKey, FirstName: "Bench", Phone: phone })}`,
        );
        if (response.status === 201) ids.push(((await response.json()) as { id: string }).id);
      }
    }),
  );
  const deadline = Date.now() + 10 * 60_000;
  let leads = await Promise.all(ids.map((id) => Leads.find(organizationId, id)));
  while (leads.some((lead) => !lead?.assignedAt) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 1000));
    leads = await Promise.all(ids.map((id) => Leads.find(organizationId, id)));
  }
  return { ids, started, assigned: leads.filter((lead) => lead?.assignedAt).map((lead) => lead!) };
}

/** DynamoDB calls and write units per lead: all of them (intake, processing, events, routing), and routing's own items. */
function callsPerLead(measurement: Measurement, leads: number) {
  const dynamodb = measurement.calls.filter((call) => call.service === "dynamodb");
  const routing = dynamodb.filter((call) => /ROUTING/.test(call.target));
  const per = (value: number) => (value / leads).toFixed(1);
  return {
    "DynamoDB calls/lead": per(dynamodb.length),
    "write units/lead": per(dynamodb.reduce((sum, call) => sum + call.writeUnits, 0)),
    "routing-item calls/lead": per(routing.length),
  };
}
