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
  const created = await api("/phone-numbers", {
    method: "POST",
    body: JSON.stringify({ phoneNumber: "+12125550999", friendlyName: "Bench line" }),
  });
  if (created.status !== 201) throw new Error(`bench phone number: ${created.status} ${await created.text()}`);

  /** Sends one message and waits for Delivered; the service's own timestamps give accept → Delivered. */
  const deliver = async (to: string, body: string, timeoutMs = 10_000): Promise<number> => {
    const accepted = (await (
      await api("/messages", { method: "POST", body: JSON.stringify({ to, body }) })
    ).json()) as { id: string };
    for (const deadline = Date.now() + timeoutMs; Date.now() < deadline; await sleep(10)) {
      const message = (await (await api(`/messages/${accepted.id}`)).json()) as {
        status: string;
        createdAt: string;
        deliveredAt?: string;
      };
      if (message.status === "Delivered" && message.deliveredAt)
        return Date.parse(message.deliveredAt) - Date.parse(message.createdAt);
      if (["Failed", "Undelivered", "Blocked"].includes(message.status))
        throw new Error(`bench message ended ${message.status}`);
    }
    throw new Error(`bench message ${accepted.id} not delivered within ${timeoutMs} ms`);
  };

  const samples = Number(process.env.BENCH_MESSAGES ?? 40);
  const latencies: number[] = [];
  for (let index = 0; index < samples; index++)
    latencies.push(await deliver(`+1212${3000000 + index}`, `Latency sample ${index}`));

  const accept = await load("POST /messages (202 Pending)", `${context.baseUrl}/messages`, {
    method: "POST",
    headers,
    body: JSON.stringify({ to: "+13125550100", body: "Throughput sample: thanks for your request!" }),
  });
  // Let the backlog the load left behind drain before the stack stops (a message sent last is delivered last, roughly).
  await deliver("+12123999999", "Drain", 180_000).catch(() => undefined);
  printTable("Messaging: accept → Delivered (simulator) and POST /messages throughput", [
    { name: "accept → Delivered, median ms", value: Math.round(percentile(latencies, 50)) },
    { name: "accept → Delivered, p90 ms", value: Math.round(percentile(latencies, 90)) },
    { name: "accept → Delivered, samples", value: latencies.length },
    { name: "POST /messages accepted per second", value: accept.requestsPerSecond },
    { name: "POST /messages p50 / p99 ms", value: `${accept.p50Ms} / ${accept.p99Ms}` },
    { name: "POST /messages non-2xx", value: accept.non2xx },
  ]);
}
