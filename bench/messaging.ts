import { load, percentile, printTable } from "#bench/measure";
import type { BenchContext } from "#bench/run";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Messaging on the local stack with the carrier simulator (its documented
 * delays: sent after 50 ms, delivered after 150 ms):
 * - accept → Delivered: messages sent one at a time, each timed from its
 *   `createdAt` to its `deliveredAt` (both stamped by the service), median and p90;
 * - `POST /messages` throughput: autocannon for BENCH_SECONDS, every message
 *   then flowing through the outbound queue, the simulator and the webhooks.
 */
export async function messagingBench(context: BenchContext): Promise<void> {
  const headers = { authorization: `Bearer ${context.apiKey}`, "content-type": "application/json" };
  const api = (path: string, init: RequestInit = {}) => fetch(`${context.baseUrl}${path}`, { ...init, headers });
  const created = await api("/phone-numbers", { method: "POST", body: JSON.stringify({ phoneNumber: "+12125550999", friendlyName: "Bench line" }) });
  if (created.status !== 201) throw new Error(`bench phone number: ${created.status} ${await created.text()}`);

  const samples = Number(process.env.BENCH_MESSAGES ?? 40);
  const latencies: number[] = [];
  for (let index = 0; index < samples; index++) {
    const accepted = (await (await api("/messages", { method: "POST", body: JSON.stringify({ to: `+1212${3000000 + index}`, body: `Latency sample ${index}` }) })).json()) as { id: string };
    for (let attempt = 0; attempt < 400; attempt++) {
      const message = (await (await api(`/messages/${accepted.id}`)).json()) as { status: string; createdAt: string; deliveredAt?: string };
      if (message.status === "Delivered" && message.deliveredAt) {
        latencies.push(Date.parse(message.deliveredAt) - Date.parse(message.createdAt));
        break;
      }
      if (["Failed", "Undelivered", "Blocked"].includes(message.status)) throw new Error(`bench message ended ${message.status}`);
      await sleep(10);
    }
  }

  const accept = await load("POST /messages (202 Pending)", `${context.baseUrl}/messages`, {
    method: "POST",
    headers,
    body: JSON.stringify({ to: "+13125550100", body: "Throughput sample: thanks for your request!" }),
  });
  printTable("Messaging: accept → Delivered (simulator) and POST /messages throughput", [
    { name: "accept → Delivered, median ms", value: Math.round(percentile(latencies, 50)) },
    { name: "accept → Delivered, p90 ms", value: Math.round(percentile(latencies, 90)) },
    { name: "accept → Delivered, samples", value: latencies.length },
    { name: "POST /messages accepted per second", value: accept.requestsPerSecond },
    { name: "POST /messages p50 / p99 ms", value: `${accept.p50Ms} / ${accept.p99Ms}` },
    { name: "POST /messages non-2xx", value: accept.non2xx },
  ]);
}
