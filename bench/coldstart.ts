import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { build, type Metafile, type Plugin } from "esbuild";
import { printTable } from "#bench/measure";
import { consumers, fallbackRoute, routes, schedules, streamConsumers } from "#stacks/definitions";
import deployedPlugins from "../stacks/bundle-plugins.mjs";

/**
 * `npm run bench -- coldstart`: bundles every handler the way SST v3 bundles a
 * Node function (sst's pkg/runtime/node/build.go: esbuild, ESM, platform node,
 * target ES2023 for nodejs22.x, `mainFields: ["module", "main"]`, `keepNames: true`, minified
 * for a deploy, the AWS SDK inside the bundle, and its banner giving CommonJS
 * dependencies `require`, `__filename` and `__dirname`), with the esbuild
 * plugins the stack gives every function (stacks/bundle-plugins.mjs), and
 * measures each bundle's size and the median time a fresh Node process takes
 * to import it (module evaluation: what a cold start pays before the handler
 * runs). Beside it, the floor: a bundle of only the AWS SDK clients that
 * handler uses, as SST bundles them by default. The ratio is handler ÷ floor.
 * The plugins make the SDK itself lighter (its credential chain is the
 * environment alone), so a second floor is built with them too, and the ratio
 * to it is what our own code and libraries cost like for like. Beside wall time, the
 * CPU time the child spent importing (user + system): on a shared machine a
 * busy neighbour stretches wall time but hardly CPU time, so the CPU ratio is
 * the steadier one. Each handler is sampled in turn with its floor (a, b, a,
 * b, …), so the drift of a shared machine during a run (a neighbour busy for a
 * minute) falls on both sides of its ratio alike, not only on the handlers
 * measured while it lasted (the same-build floor, a secondary figure, is
 * measured once per set of clients). The stack bundles every function with
 * splitting (SST's `nodejs.splitting`, stacks/functions.ts), so each handler is
 * built as SST builds it then (an output directory, chunks named `.mjs`): its
 * size is what a cold start loads (the entry and the chunks it imports
 * statically) and the import measured is the entry's; the chunks only a
 * dynamic `import()` reaches are counted apart. The floor stays a single file,
 * as SST bundles by default; the SDK clients in it are those of the handler's
 * cold-start part (a client it loads on first use is not in its floor).
 */

const samples = Number(process.env.COLDSTART_SAMPLES ?? 5);
/** SST's banner, line for line. */
const banner = [
  "import { createRequire as topLevelCreateRequire } from 'module';",
  "const require = topLevelCreateRequire(import.meta.url);",
  'import { fileURLToPath as topLevelFileUrlToPath, URL as topLevelURL } from "url"',
  "const __filename = topLevelFileUrlToPath(import.meta.url)",
  'const __dirname = topLevelFileUrlToPath(new topLevelURL(".", import.meta.url))',
].join("\n");
/** The goals: import time within 1.2× the SDK-only floor, bundle within 700 KB. */
const goalRatio = 1.2;
const goalKb = 700;

/** The SDK clients a bundle may contain, and how the floor entry keeps each (a client constructed, so nothing is tree-shaken away). */
const sdkClients: Record<string, string> = {
  "@aws-sdk/client-dynamodb": 'import { DynamoDBClient } from "@aws-sdk/client-dynamodb"; keep.push(DynamoDBClient);',
  "@aws-sdk/lib-dynamodb":
    'import { DynamoDBDocumentClient, GetCommand } from "@aws-sdk/lib-dynamodb"; keep.push(DynamoDBDocumentClient, GetCommand);',
  "@aws-sdk/client-sqs":
    'import { SQSClient, SendMessageCommand } from "@aws-sdk/client-sqs"; keep.push(SQSClient, SendMessageCommand);',
};

interface Row {
  handler: string;
  split: boolean;
  kb: number;
  lazyKb: number;
  ms: number;
  cpuMs: number;
  floorKb: number;
  floorMs: number;
  floorCpuMs: number;
  ratio: number;
  cpuRatio: number;
  /** The floor built with the stack's plugins, as the handler is, and the handler's ratio to it. */
  builtFloorKb: number;
  builtFloorMs: number;
  builtRatio: number;
  clients: string[];
  heaviest: string;
}

/** The three packages (or our own code, as "app") that put the most bytes into a bundle: where a handler's weight comes from. */
function heaviestPackages(inputs: BundleInputs): string {
  const bytes = new Map<string, number>();
  for (const [input, { bytesInOutput }] of Object.entries(inputs)) {
    const name = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(input)?.[1] ?? "app";
    bytes.set(name, (bytes.get(name) ?? 0) + bytesInOutput);
  }
  return [...bytes]
    .filter(([name]) => !name.startsWith("@aws-sdk/") && !name.startsWith("@smithy/"))
    .sort((a, b) => b[1] - a[1])
    .slice(0, 3)
    .map(([name, size]) => `${name} ${(size / 1024).toFixed(0)}`)
    .join(", ");
}

/** The modules in some outputs of a bundle, with the bytes each put there. */
export type BundleInputs = Metafile["outputs"][string]["inputs"];

/** One handler bundled as SST builds it. */
export interface Bundle {
  metafile: Metafile;
  /** Whether it was built with splitting. */
  split: boolean;
  /** The file Lambda imports: the handler's (its chunks, if split, are beside it). */
  entryFile: string;
  /** What a cold start loads: the entry and, if split, the chunks it imports statically (transitively). */
  coldBytes: number;
  coldInputs: BundleInputs;
  /** The chunks only a dynamic `import()` reaches, loaded on first use (0 unless split). */
  lazyBytes: number;
  lazyChunks: number;
}

/**
 * One entry bundled with SST v3's options (or, with `fromStdin`, the given source) into `outfile`. With `splitting`
 * it is built as SST's build.go does for `nodejs.splitting`: into `outfile`'s directory, every file named `.mjs`, so
 * the entry is still `outfile` when its name matches the entry's (`<dir>/functions/a2a/rpc.mjs` for `functions/a2a/rpc.ts`).
 * `plugins`: the ones the stack gives every function's build (`nodejs.plugins`, stacks/bundle-plugins.mjs) unless
 * told otherwise (`[]`: the SDK as SST bundles it by default).
 */
export async function bundle(
  entry: string,
  outfile: string,
  {
    fromStdin,
    splitting = false,
    plugins = deployedPlugins,
  }: { fromStdin?: string; splitting?: boolean; plugins?: Plugin[] } = {},
): Promise<Bundle> {
  const result = await build({
    ...(fromStdin
      ? { stdin: { contents: fromStdin, resolveDir: process.cwd(), loader: "ts" } }
      : { entryPoints: [entry] }),
    bundle: true,
    platform: "node",
    format: "esm",
    // SST 3.18.10 targets the function's runtime (build.go's targetMap: ES2023 for nodejs22.x, what the stack deploys).
    target: "es2023",
    minify: true,
    keepNames: true,
    mainFields: ["module", "main"],
    banner: { js: banner },
    plugins,
    ...(splitting ? { splitting: true, outdir: dirname(outfile), outExtension: { ".js": ".mjs" } } : { outfile }),
    metafile: true,
    logLevel: "silent",
  });
  const { outputs } = result.metafile;
  // Split, each import() target is an entry point of its own too: the handler's output is the one at `outfile`.
  const entryOutput = Object.keys(outputs).find((output) => resolve(output) === resolve(outfile));
  if (!entryOutput) throw new Error(`${entry}: no output at ${outfile}`);
  // A cold start evaluates the entry and what it imports statically; a dynamic import() waits for its first call.
  const cold = new Set([entryOutput]);
  for (const output of cold)
    for (const { path, kind, external } of outputs[output]!.imports)
      if (kind === "import-statement" && !external) cold.add(path);
  const lazy = Object.keys(outputs).filter((output) => !cold.has(output));
  const bytes = (files: Iterable<string>) => [...files].reduce((sum, output) => sum + outputs[output]!.bytes, 0);
  return {
    metafile: result.metafile,
    split: splitting,
    entryFile: resolve(outfile),
    coldBytes: bytes(cold),
    coldInputs: Object.assign({}, ...[...cold].map((output) => outputs[output]!.inputs)) as BundleInputs,
    lazyBytes: bytes(lazy),
    lazyChunks: lazy.length,
  };
}

/** Medians over `count` fresh processes importing `file`: wall time and the CPU time of the import (ms). */
function importMs(file: string, count = samples): { ms: number; cpuMs: number } {
  return importMsInTurn([file], count)[0]!;
}

/**
 * `importMs` of several files sampled in turn (a, b, a, b, …): a ratio of two of them divides times taken in the same
 * moments, so the machine's drift over a run (a neighbour busy for a minute, the CPU's clock) falls on both alike.
 */
function importMsInTurn(files: string[], count = samples): { ms: number; cpuMs: number }[] {
  const wall: number[][] = files.map(() => []);
  const cpu: number[][] = files.map(() => []);
  for (let sample = 0; sample < count; sample++)
    files.forEach((file, index) => {
      const script = `const cpu = process.cpuUsage(); const start = performance.now(); await import(${JSON.stringify(file)}); const used = process.cpuUsage(cpu); console.log(performance.now() - start, (used.user + used.system) / 1000);`;
      const output = execFileSync(process.execPath, ["--input-type=module", "-e", script], {
        env: { ...process.env, TABLE_NAME: "bench", AWS_REGION: "us-east-1", NODE_OPTIONS: "" },
        encoding: "utf8",
      });
      const [ms, cpuMs] = output.trim().split("\n").at(-1)!.split(" ").map(Number);
      wall[index]!.push(ms!);
      cpu[index]!.push(cpuMs!);
    });
  const median = (values: number[]) => values.sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
  return files.map((_, index) => ({ ms: median(wall[index]!), cpuMs: median(cpu[index]!) }));
}

/**
 * Every function the stack deploys, as its module path without `.handler` (`functions/leads/get`). The stack builds
 * each with splitting (stacks/functions.ts `withDefaults`), so the benches do too.
 */
export function deployedHandlers(): string[] {
  return [
    ...new Set(
      [...routes, fallbackRoute, ...consumers, ...schedules, ...streamConsumers].map((definition) =>
        definition.handler.replace(/\.handler$/, ""),
      ),
    ),
  ];
}

export async function coldstartBench(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "coldstart-"));
  try {
    type Floor = { kb: number; ms: number; cpuMs: number };
    const floors = new Map<string, { kb: number; file: string; built: Floor }>();
    const rows: Row[] = [];
    // `COLDSTART_HANDLERS=a2a/,leads/get` measures only the handlers whose path contains one of the parts.
    const only = process.env.COLDSTART_HANDLERS?.split(",").filter(Boolean);
    const handlers = deployedHandlers().filter((handler) => !only || only.some((part) => handler.includes(part)));
    for (const handler of handlers) {
      const built = await bundle(resolve(`${handler}.ts`), join(dir, `${handler}.mjs`), { splitting: true });
      const inputs = Object.keys(built.coldInputs);
      const clients = Object.keys(sdkClients).filter((client) =>
        inputs.some((input) => input.includes(`node_modules/${client}/`)),
      );
      const key = clients.join(",");
      if (!floors.has(key)) {
        const floorSource = `const keep: unknown[] = [];\n${clients.map((client) => sdkClients[client]).join("\n")}\nexport const handler = async () => keep.length;`;
        // The floor: the SDK clients alone, as SST bundles them by default (the whole credential chain)…
        const floorFile = join(dir, `floor-${floors.size}.mjs`);
        const floorBundle = await bundle("", floorFile, { fromStdin: floorSource, plugins: [] });
        // …and the same clients built as the stack builds every function (its plugins, splitting): like for like.
        // Split, the stdin entry is written as `stdin.mjs` in its own directory.
        const builtFloorFile = join(dir, `floor-built-${floors.size}`, "stdin.mjs");
        const builtFloorBundle = await bundle("", builtFloorFile, { fromStdin: floorSource, splitting: true });
        floors.set(key, {
          kb: floorBundle.coldBytes / 1024,
          file: floorFile,
          built: { kb: builtFloorBundle.coldBytes / 1024, ...importMs(builtFloorFile, samples * 3) },
        });
      }
      const floor = floors.get(key)!;
      // The handler and its floor in turn, so their ratio is not the drift between two moments of the run.
      const [handlerTime, floorTime] = importMsInTurn([built.entryFile, floor.file]);
      const { ms, cpuMs } = handlerTime!;
      const { ms: floorMs, cpuMs: floorCpuMs } = floorTime!;
      rows.push({
        handler,
        split: built.split,
        kb: built.coldBytes / 1024,
        lazyKb: built.lazyBytes / 1024,
        ms,
        cpuMs,
        floorKb: floor.kb,
        floorMs,
        floorCpuMs,
        ratio: ms / floorMs,
        cpuRatio: cpuMs / floorCpuMs,
        builtFloorKb: floor.built.kb,
        builtFloorMs: floor.built.ms,
        builtRatio: ms / floor.built.ms,
        clients,
        heaviest: heaviestPackages(built.coldInputs),
      });
    }
    rows.sort((a, b) => b.ratio - a.ratio);
    printTable(
      `cold start: ${rows.length} handlers bundled as SST v3 does (esbuild ESM, platform node, ES2023, minified, keepNames, mainFields module,main, SDK bundled, with splitting as the stack builds them: bundle KB is the entry and its static chunks); median of ${samples} fresh imports each`,
      rows.map((row) => ({
        handler: row.handler,
        "bundle KB": row.kb.toFixed(0),
        "lazy chunks KB": row.lazyKb.toFixed(0),
        "import ms": row.ms.toFixed(1),
        "SDK-only floor KB": row.floorKb.toFixed(0),
        "floor ms": row.floorMs.toFixed(1),
        "× floor": row.ratio.toFixed(2),
        "CPU ms": row.cpuMs.toFixed(1),
        "floor CPU ms": row.floorCpuMs.toFixed(1),
        "× floor CPU": row.cpuRatio.toFixed(2),
        "same-build floor KB": row.builtFloorKb.toFixed(0),
        "same-build floor ms": row.builtFloorMs.toFixed(1),
        "× same-build floor": row.builtRatio.toFixed(2),
        clients: row.clients.map((client) => client.replace("@aws-sdk/", "")).join(" "),
        "heaviest besides the SDK (KB)": row.heaviest,
      })),
    );
    const worst = rows[0]!;
    const over = rows.filter((row) => row.ratio > goalRatio);
    const overCpu = rows.filter((row) => row.cpuRatio > goalRatio);
    const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
    const overSize = rows.filter((row) => row.kb > goalKb);
    const largest = rows.reduce((most, row) => (row.kb > most.kb ? row : most));
    console.log(
      `worst ${worst.handler} ${worst.ratio.toFixed(2)}× its floor; ${over.length} of ${rows.length} handlers above ${goalRatio}× (goal 0); median ${median(rows.map((row) => row.ratio)).toFixed(2)}×`,
    );
    const overBuilt = rows.filter((row) => row.builtRatio > goalRatio);
    console.log(
      `against the floor built as the stack builds functions (its plugins: credentials from the environment): ${overBuilt.length} of ${rows.length} above ${goalRatio}×; median ${median(rows.map((row) => row.builtRatio)).toFixed(2)}×`,
    );
    console.log(
      `CPU time: worst ${Math.max(...rows.map((row) => row.cpuRatio)).toFixed(2)}×, median ${median(rows.map((row) => row.cpuRatio)).toFixed(2)}× the floor; ${overCpu.length} of ${rows.length} handlers above ${goalRatio}×`,
    );
    console.log(
      `bundles: ${overSize.length} of ${rows.length} above ${goalKb} KB (goal 0); largest ${largest.handler} ${largest.kb.toFixed(0)} KB; median ${median(rows.map((row) => row.kb)).toFixed(0)} KB`,
    );
    // A fresh clone has no .cache directory yet.
    mkdirSync(join(process.cwd(), ".cache"), { recursive: true });
    writeFileSync(join(process.cwd(), ".cache", "coldstart.json"), JSON.stringify(rows, null, 2));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
