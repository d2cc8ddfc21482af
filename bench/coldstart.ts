import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { build, type Metafile } from "esbuild";
import { printTable } from "#bench/measure";
import { consumers, fallbackRoute, routes, schedules, streamConsumers } from "#stacks/definitions";

/**
 * `npm run bench -- coldstart`: bundles every handler the way SST v3 bundles a
 * Node function (esbuild, ESM, minified, node22, the AWS SDK inside the
 * bundle, a createRequire banner for CommonJS dependencies) and measures each
 * bundle's size and the median time a fresh Node process takes to import it
 * (module evaluation: what a cold start pays before the handler runs). Beside
 * it, the floor: a bundle of only the AWS SDK clients that handler uses,
 * measured the same way. The ratio is handler ÷ floor. Beside wall time, the
 * CPU time the child spent importing (user + system): on a shared machine a
 * busy neighbour stretches wall time but hardly CPU time, so the CPU ratio is
 * the steadier one. Each floor is sampled three times as often as a handler,
 * since every ratio of its group divides by it.
 */

const samples = Number(process.env.COLDSTART_SAMPLES ?? 5);
const banner = "import { createRequire as topLevelCreateRequire } from 'module'; const require = topLevelCreateRequire(import.meta.url);";

/** The SDK clients a bundle may contain, and how the floor entry keeps each (a client constructed, so nothing is tree-shaken away). */
const sdkClients: Record<string, string> = {
  "@aws-sdk/client-dynamodb": 'import { DynamoDBClient } from "@aws-sdk/client-dynamodb"; keep.push(DynamoDBClient);',
  "@aws-sdk/lib-dynamodb": 'import { DynamoDBDocumentClient, GetCommand } from "@aws-sdk/lib-dynamodb"; keep.push(DynamoDBDocumentClient, GetCommand);',
  "@aws-sdk/client-sqs": 'import { SQSClient, SendMessageCommand } from "@aws-sdk/client-sqs"; keep.push(SQSClient, SendMessageCommand);',
};

interface Row {
  handler: string;
  kb: number;
  ms: number;
  cpuMs: number;
  floorKb: number;
  floorMs: number;
  floorCpuMs: number;
  ratio: number;
  cpuRatio: number;
  clients: string[];
}

async function bundle(entry: string, outfile: string, fromStdin?: string): Promise<Metafile> {
  const result = await build({
    ...(fromStdin ? { stdin: { contents: fromStdin, resolveDir: process.cwd(), loader: "ts" } } : { entryPoints: [entry] }),
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node22",
    minify: true,
    mainFields: ["module", "main"],
    banner: { js: banner },
    outfile,
    metafile: true,
    logLevel: "silent",
  });
  return result.metafile;
}

/** Medians over `count` fresh processes importing `file`: wall time and the CPU time of the import (ms). */
function importMs(file: string, count = samples): { ms: number; cpuMs: number } {
  const wall: number[] = [];
  const cpu: number[] = [];
  const script = `const cpu = process.cpuUsage(); const start = performance.now(); await import(${JSON.stringify(file)}); const used = process.cpuUsage(cpu); console.log(performance.now() - start, (used.user + used.system) / 1000);`;
  for (let sample = 0; sample < count; sample++) {
    const output = execFileSync(process.execPath, ["--input-type=module", "-e", script], {
      env: { ...process.env, TABLE_NAME: "bench", AWS_REGION: "us-east-1", NODE_OPTIONS: "" },
      encoding: "utf8",
    });
    const [ms, cpuMs] = output.trim().split("\n").at(-1)!.split(" ").map(Number);
    wall.push(ms!);
    cpu.push(cpuMs!);
  }
  const median = (values: number[]) => values.sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
  return { ms: median(wall), cpuMs: median(cpu) };
}

export async function coldstartBench(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "coldstart-"));
  try {
    const handlers = [
      ...new Set([
        ...routes.map((route) => route.handler),
        fallbackRoute.handler,
        ...consumers.map((consumer) => consumer.handler),
        ...schedules.map((schedule) => schedule.handler),
        ...streamConsumers.map((consumer) => consumer.handler),
      ]),
    ].map((handler) => handler.replace(/\.handler$/, ""));
    const floors = new Map<string, { kb: number; ms: number; cpuMs: number }>();
    const rows: Row[] = [];
    for (const handler of handlers) {
      const outfile = join(dir, `${handler.replaceAll("/", "_")}.mjs`);
      const metafile = await bundle(resolve(`${handler}.ts`), outfile);
      const output = Object.values(metafile.outputs)[0]!;
      const inputs = Object.keys(output.inputs);
      const clients = Object.keys(sdkClients).filter((client) => inputs.some((input) => input.includes(`node_modules/${client}/`)));
      const key = clients.join(",");
      if (!floors.has(key)) {
        const floorFile = join(dir, `floor-${floors.size}.mjs`);
        const floorMeta = await bundle("", floorFile, `const keep: unknown[] = [];\n${clients.map((client) => sdkClients[client]).join("\n")}\nexport const handler = async () => keep.length;`);
        floors.set(key, { kb: Object.values(floorMeta.outputs)[0]!.bytes / 1024, ...importMs(floorFile, samples * 3) });
      }
      const floor = floors.get(key)!;
      const { ms, cpuMs } = importMs(outfile);
      rows.push({
        handler,
        kb: output.bytes / 1024,
        ms,
        cpuMs,
        floorKb: floor.kb,
        floorMs: floor.ms,
        floorCpuMs: floor.cpuMs,
        ratio: ms / floor.ms,
        cpuRatio: cpuMs / floor.cpuMs,
        clients,
      });
    }
    rows.sort((a, b) => b.ratio - a.ratio);
    printTable(
      `cold start: ${rows.length} handlers bundled as SST does (esbuild ESM, minified, node22, SDK bundled); median of ${samples} fresh imports each`,
      rows.map((row) => ({
        handler: row.handler,
        "bundle KB": row.kb.toFixed(0),
        "import ms": row.ms.toFixed(1),
        "SDK-only floor KB": row.floorKb.toFixed(0),
        "floor ms": row.floorMs.toFixed(1),
        "× floor": row.ratio.toFixed(2),
        "CPU ms": row.cpuMs.toFixed(1),
        "floor CPU ms": row.floorCpuMs.toFixed(1),
        "× floor CPU": row.cpuRatio.toFixed(2),
        clients: row.clients.map((client) => client.replace("@aws-sdk/", "")).join(" "),
      })),
    );
    const worst = rows[0]!;
    const over = rows.filter((row) => row.ratio > 1.2);
    const overCpu = rows.filter((row) => row.cpuRatio > 1.2);
    const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
    console.log(`worst ${worst.handler} ${worst.ratio.toFixed(2)}× its floor; ${over.length} of ${rows.length} handlers above 1.2×; median ${median(rows.map((row) => row.ratio)).toFixed(2)}×`);
    console.log(`CPU time: median ${median(rows.map((row) => row.cpuRatio)).toFixed(2)}× the floor; ${overCpu.length} of ${rows.length} handlers above 1.2×`);
    writeFileSync(join(process.cwd(), ".cache", "coldstart.json"), JSON.stringify(rows, null, 2));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
