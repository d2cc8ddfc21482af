import autocannon from "autocannon";
import { startMeasuring, stopMeasuring, type Measurement } from "#core/observability/call-count";

export interface LoadResult {
  name: string;
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  non2xx: number;
}

/** Drives one URL with autocannon for a fixed time and reports throughput and latency percentiles. */
export async function load(
  name: string,
  url: string,
  options: {
    headers?: Record<string, string>;
    connections?: number;
    durationSeconds?: number;
    method?: "GET" | "POST";
    body?: string;
  } = {},
): Promise<LoadResult> {
  const result = await autocannon({
    url,
    method: options.method ?? "GET",
    headers: options.headers,
    body: options.body,
    connections: options.connections ?? 10,
    duration: options.durationSeconds ?? Number(process.env.BENCH_SECONDS ?? 8),
  });
  return {
    name,
    requestsPerSecond: Math.round(result.requests.average),
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    non2xx: result.non2xx,
  };
}

/** Percentile of a list of numbers (nearest rank). */
export function percentile(values: number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

export function printTable(title: string, rows: Record<string, string | number>[]): void {
  console.log(`\n## ${title}`);
  console.table(rows);
}

/**
 * Waits until the stack in this process makes no AWS call for `quietMs` (its consumers and stream readers have
 * finished what a benchmark gave them). Needs MEASURE_CALLS; returns the calls made meanwhile (a measurement already
 * running, or a new one that is stopped again).
 */
export async function untilQuiet(quietMs = 3000, running?: Measurement): Promise<Measurement> {
  const measurement = running ?? startMeasuring();
  let seen = -1;
  while (measurement.calls.length !== seen) {
    seen = measurement.calls.length;
    await new Promise((resolve) => setTimeout(resolve, quietMs));
  }
  if (!running) stopMeasuring();
  return measurement;
}
