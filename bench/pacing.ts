import { readdirSync, readFileSync } from "node:fs";
import { printTable } from "#bench/measure";
import type { BenchContext } from "#bench/run";
import * as Billing from "#core/billing/index";
import { logger } from "#core/observability/index";
import { watchSimulatedSends } from "#core/providers/simulator/adapter";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const NUMBERS = ["+12125550971", "+12125550972", "+12125550973"];

/**
 * Per-number pacing (issue 31): `BENCH_PACING_SENDS` (default 500) messages
 * posted at once to one organization with three long codes (1 MPS each, the
 * default), each to its own lead. The simulated carrier reports when it accepted
 * each send, so the figures are the carrier's view: the most sends any number
 * made in any one clock second (must be ≤ 1), how many were delivered, the time
 * from the first POST to the last hand-over against the theoretical
 * sends / (3 × 1 MPS), and the CPU the stack (this process and DynamoDB Local)
 * spent meanwhile: waiting sends sit in the queue, so it stays far below one core.
 */
export async function pacingBench(context: BenchContext): Promise<void> {
  const headers = { authorization: `Bearer ${context.apiKey}`, "content-type": "application/json" };
  const api = (path: string, init: RequestInit = {}) => fetch(`${context.baseUrl}${path}`, { ...init, headers });
  // A line per request and queue record would be most of the CPU measured: warnings and errors only.
  logger.setLogLevel("WARN");
  // A new organization's wallet pays for a few hundred texts; the bench is about throughput, not funds.
  await Billing.adjust(context.organizationId, "100.00", "Pacing bench funding");
  for (const phoneNumber of NUMBERS) {
    const created = await api("/phone-numbers", {
      method: "POST",
      body: JSON.stringify({ phoneNumber, friendlyName: "Pacing bench line" }),
    });
    if (created.status !== 201) throw new Error(`bench phone number: ${created.status} ${await created.text()}`);
  }
  const total = Number(process.env.BENCH_PACING_SENDS ?? 500);
  const sends: { from: string; at: number }[] = [];
  const stopWatching = watchSimulatedSends((send) => NUMBERS.includes(send.from) && sends.push(send));
  const cpuBefore = stackCpuMs();
  const started = Date.now();
  const ids: string[] = [];
  // Posted 20 at a time, as a lead import or an automation fan-out would.
  for (let offset = 0; offset < total; offset += 20) {
    const batch = Array.from({ length: Math.min(20, total - offset) }, (_, index) => offset + index);
    const accepted = await Promise.all(
      batch.map(async (index) => {
        // On a saturated machine a request can run out of time (503, or a 500 when the function timed out): retried with its Idempotency-Key, as the API advises.
        const key = `pacing-bench-${started}-${index}`;
        let response: Response;
        for (let attempt = 1; ; attempt++) {
          response = await fetch(`${context.baseUrl}/messages`, {
            method: "POST",
            headers: { ...headers, "idempotency-key": key },
            body: JSON.stringify({ to: `+1212${4000000 + index}`, body: `Thanks for your request, lead ${index}!` }),
          });
          if ((response.status < 500 && response.status !== 409) || attempt === 10) break;
          await sleep(1_000);
        }
        if (response.status !== 202) throw new Error(`bench send: ${response.status} ${await response.text()}`);
        return ((await response.json()) as { id: string }).id;
      }),
    );
    ids.push(...accepted);
  }
  const postedMs = Date.now() - started;
  const theoreticalMs = ((total - NUMBERS.length) / NUMBERS.length) * 1000;
  // From the last POST: on a saturated machine posting alone can take longer than the sends' theoretical time.
  for (const deadline = Date.now() + theoreticalMs * 2 + 120_000; sends.length < total && Date.now() < deadline;)
    await sleep(500);
  const handedOverMs = Math.max(...sends.map((send) => send.at)) - started;
  const cpuMs = stackCpuMs() - cpuBefore;
  stopWatching();

  let statuses = new Map<string, number>();
  for (const deadline = Date.now() + 60_000; Date.now() < deadline; await sleep(1_000)) {
    statuses = new Map();
    for (const id of ids) {
      const { status } = (await (await api(`/messages/${id}`)).json()) as { status: string };
      statuses.set(status, (statuses.get(status) ?? 0) + 1);
    }
    if (statuses.get("Delivered") === total) break;
  }
  const delivered = statuses.get("Delivered") ?? 0;

  const perSecond = new Map<string, number>();
  for (const send of sends) {
    const key = `${send.from} ${Math.floor(send.at / 1000)}`;
    perSecond.set(key, (perSecond.get(key) ?? 0) + 1);
  }
  const perNumber = NUMBERS.map((number) => sends.filter((send) => send.from === number).length);
  printTable(`Pacing: ${total} sends, one organization, ${NUMBERS.length} long codes at 1 MPS`, [
    { name: "max sends per number in any clock second (carrier's view)", value: Math.max(...perSecond.values()) },
    { name: "sends per number", value: perNumber.join(" / ") },
    { name: "handed to the carrier / delivered", value: `${sends.length} / ${delivered}` },
    { name: "final statuses", value: [...statuses].map(([status, count]) => `${status} ${count}`).join(", ") },
    { name: "all POST /messages answered 202, s", value: (postedMs / 1000).toFixed(1) },
    { name: "first POST → last hand-over, s", value: (handedOverMs / 1000).toFixed(1) },
    { name: "theoretical at 3 × 1 MPS, s", value: (theoreticalMs / 1000).toFixed(1) },
    { name: "stack CPU during the run, s (node + DynamoDB Local)", value: (cpuMs / 1000).toFixed(1) },
    { name: "stack CPU, share of one core", value: `${((cpuMs / handedOverMs) * 100).toFixed(0)}%` },
  ]);
}

/** CPU (user + system, ms) of this process and every process it started that still runs (DynamoDB Local's JVM), from /proc. */
function stackCpuMs(): number {
  const own = process.cpuUsage();
  const stats = new Map<number, { parent: number; ticks: number }>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // After "(name) ": state, ppid, …; utime and stime are fields 14 and 15 of stat (indexes 11 and 12 here), in ticks of 10 ms.
      const fields = readFileSync(`/proc/${entry}/stat`, "utf8").split(") ")[1]!.split(" ");
      stats.set(Number(entry), { parent: Number(fields[1]), ticks: Number(fields[11]) + Number(fields[12]) });
    } catch {
      // The process ended while being read.
    }
  }
  const descends = (pid: number): boolean => {
    for (let parent = stats.get(pid)?.parent; parent !== undefined && parent > 1; parent = stats.get(parent)?.parent)
      if (parent === process.pid) return true;
    return false;
  };
  let descendants = 0;
  for (const [pid, { ticks }] of stats) if (descends(pid)) descendants += ticks * 10;
  return (own.user + own.system) / 1000 + descendants;
}
