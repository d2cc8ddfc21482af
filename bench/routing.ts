import { systemActor } from "#core/auth/actor";
import { Leads } from "#core/leads/index";
import { Routing } from "#core/routing/index";
import { Sources } from "#core/sources/index";
import { Users } from "#core/users/index";
import { percentile, printTable } from "#bench/measure";
import type { BenchContext } from "#bench/run";

const leadCount = () => Number(process.env.BENCH_ROUTING_LEADS ?? 1000);
const agentCount = 20;
const connections = 10;

/**
 * Routing on the local stack (issue 28): `leadCount` leads posted to intake by `connections` clients, routed by one
 * round-robin rule over 20 agents. Reports assignments per second (first 201 to last assignment), intake-to-assigned
 * (the lead's createdAt to its assignedAt) p50/p99, and whether the split is exact.
 */
export async function routingBench(context: BenchContext): Promise<void> {
  const { baseUrl, organizationId } = context;
  const actor = systemActor(organizationId);
  const agents = await Promise.all(
    Array.from({ length: agentCount }, (_, index) => Users.add(organizationId, { email: `bench-agent-${index}-${organizationId}@example.com`, name: `Agent ${index}`, role: "agent" })),
  );
  await Routing.replace(actor, { agentsSeeAllLeads: true, agentsMayClaim: false, agents: [], rules: [{ id: "bench", name: null, conditions: {}, pool: agents.map((agent) => agent.id), strategy: "roundRobin" }] });
  const { sourceId, apiKey } = await Sources.create(actor, { name: "Routing bench", duplicateWindowHours: 0 });

  const ids: string[] = [];
  let next = 0;
  const started = Date.now();
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (next < leadCount()) {
        const index = next++;
        const phone = `+1202${String(200 + Math.floor(index / 10_000))}${String(index % 10_000).padStart(4, "0")}`;
        const response = await fetch(`${baseUrl}/leads/intake?${new URLSearchParams({ sourceId, apiKey, FirstName: "Bench", Phone: phone })}`);
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
  const assigned = leads.filter((lead) => lead?.assignedAt);
  const latencies = assigned.map((lead) => Date.parse(lead!.assignedAt!) - Date.parse(lead!.createdAt));
  const lastAssigned = Math.max(...assigned.map((lead) => Date.parse(lead!.assignedAt!)));
  const perAgent = Object.values(assigned.reduce<Record<string, number>>((counts, lead) => ({ ...counts, [lead!.assignedUserId!]: (counts[lead!.assignedUserId!] ?? 0) + 1 }), {}));

  printTable(`Routing: ${ids.length} leads, one round-robin rule over ${agentCount} agents (local stack)`, [
    {
      assigned: assigned.length,
      "assignments/s": Math.round((assigned.length / (lastAssigned - started)) * 1000),
      "intake→assigned p50 ms": percentile(latencies, 50),
      "intake→assigned p99 ms": percentile(latencies, 99),
      "per agent (min-max)": `${Math.min(...perAgent)}-${Math.max(...perAgent)}`,
    },
  ]);
}
