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
 * measured the same way. The ratio is handler ÷ floor.
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
  floorKb: number;
  floorMs: number;
  ratio: number;
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

/** Median of `samples` fresh processes importing `file` (ms). */
function importMs(file: string): number {
  const times: number[] = [];
  for (let sample = 0; sample < samples; sample++) {
    const output = execFileSync(
      process.execPath,
      ["--input-type=module", "-e", `const start = performance.now(); await import(${JSON.stringify(file)}); console.log(performance.now() - start);`],
      { env: { ...process.env, TABLE_NAME: "bench", AWS_REGION: "us-east-1", NODE_OPTIONS: "" }, encoding: "utf8" },
    );
    times.push(Number(output.trim().split("\n").at(-1)));
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)]!;
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
    const floors = new Map<string, { kb: number; ms: number }>();
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
        floors.set(key, { kb: Object.values(floorMeta.outputs)[0]!.bytes / 1024, ms: importMs(floorFile) });
      }
      const floor = floors.get(key)!;
      const ms = importMs(outfile);
      rows.push({ handler, kb: output.bytes / 1024, ms, floorKb: floor.kb, floorMs: floor.ms, ratio: ms / floor.ms, clients });
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
        clients: row.clients.map((client) => client.replace("@aws-sdk/", "")).join(" "),
      })),
    );
    const worst = rows[0]!;
    const over = rows.filter((row) => row.ratio > 1.2);
    console.log(`worst ${worst.handler} ${worst.ratio.toFixed(2)}× its floor; ${over.length} of ${rows.length} handlers above 1.2×`);
    writeFileSync(join(process.cwd(), ".cache", "coldstart.json"), JSON.stringify(rows, null, 2));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
