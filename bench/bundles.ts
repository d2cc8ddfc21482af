import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { bundle, deployedHandlers, type Bundle, type BundleInputs } from "#bench/coldstart";
import { printTable } from "#bench/measure";

/**
 * `npm run bench -- bundles`: the coldstart bench's bundles without the
 * timing (seconds instead of many minutes, and exact): each handler's size
 * with SST v3's esbuild options, the count over 700 KB, the median and the
 * largest, and per handler what weighs most (packages, and our own modules by
 * directory). `BUNDLES_WHY=<package or path part>` also prints, per handler
 * that contains it, the import chain from the entry to the first input whose
 * path contains it (why a bundle carries it). `BUNDLES_HANDLERS=leads/,calls/get`
 * bundles only the handlers whose path contains one of the parts (the figures
 * then describe those only). Every function is built with splitting, as the
 * stack builds them (SST's `nodejs.splitting`, stacks/functions.ts): its KB is
 * what a cold start loads (the entry and the chunks it imports statically,
 * followed through the output's static imports), and the chunks only a dynamic
 * `import()` reaches are their own column. Writes `.cache/bundles.json`.
 */

const goalKb = 700;

/** Bytes per package (node_modules) or per `core/<aggregate>` directory, heaviest first. */
function weights(inputs: BundleInputs): [string, number][] {
  const bytes = new Map<string, number>();
  for (const [input, { bytesInOutput }] of Object.entries(inputs)) {
    const name =
      /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(input)?.[1] ??
      /^((?:core|functions|stacks)\/[^/]+)/.exec(input)?.[1] ??
      input;
    bytes.set(name, (bytes.get(name) ?? 0) + bytesInOutput);
  }
  return [...bytes].sort((a, b) => b[1] - a[1]);
}

/**
 * The shortest import chain from the entry to the first input whose path contains `part`, by breadth-first search
 * over the metafile, among the inputs a cold start loads.
 */
function chainTo({ metafile, coldInputs: included, split }: Bundle, entry: string, part: string): string[] | undefined {
  // Only inputs of the output: an import whose module was tree-shaken away explains nothing. A module that put no
  // bytes in (a barrel of re-exports, a package's index) is passed through, but is never the answer.
  const previous = new Map<string, string | null>([[entry, null]]);
  const queue = [entry];
  while (queue.length) {
    const input = queue.shift()!;
    if (input.includes(part) && included[input]?.bytesInOutput) {
      const chain = [];
      for (let at: string | null = input; at !== null; at = previous.get(at)!) chain.unshift(at);
      return chain;
    }
    for (const { path, kind } of metafile.inputs[input]?.imports ?? []) {
      // Split, what an import() reaches is a chunk of its own, loaded on first use, not at cold start.
      if (split && kind === "dynamic-import") continue;
      if (!previous.has(path) && path in included) {
        previous.set(path, input);
        queue.push(path);
      }
    }
  }
  return undefined;
}

export async function bundlesBench(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "bundles-"));
  const why = process.env.BUNDLES_WHY;
  const only = process.env.BUNDLES_HANDLERS?.split(",").filter(Boolean);
  try {
    const rows: {
      handler: string;
      split: boolean;
      kb: number;
      lazyKb: number;
      lazyChunks: number;
      heaviest: [string, number][];
      modules: Record<string, number>;
    }[] = [];
    const handlers = deployedHandlers().filter((handler) => !only || only.some((part) => handler.includes(part)));
    for (const handler of handlers) {
      const built = await bundle(resolve(`${handler}.ts`), join(dir, `${handler}.mjs`), { splitting: true });
      const modules = Object.fromEntries(
        Object.entries(built.coldInputs)
          .filter(([input]) => !input.includes("node_modules/"))
          .map(([input, { bytesInOutput }]) => [input, bytesInOutput]),
      );
      rows.push({
        handler,
        split: built.split,
        kb: built.coldBytes / 1024,
        lazyKb: built.lazyBytes / 1024,
        lazyChunks: built.lazyChunks,
        heaviest: weights(built.coldInputs),
        modules,
      });
      if (why) {
        const chain = chainTo(built, `${handler}.ts`, why);
        if (chain) console.log(`${handler}: ${chain.join(" → ")}`);
      }
    }
    rows.sort((a, b) => b.kb - a.kb);
    const describe = (heaviest: [string, number][]) =>
      heaviest
        .filter(([name]) => !name.startsWith("@aws-sdk/") && !name.startsWith("@smithy/"))
        .slice(0, 5)
        .map(([name, size]) => `${name} ${(size / 1024).toFixed(0)}`)
        .join(", ");
    printTable(
      `bundles: ${rows.length} handlers bundled as SST v3 does (see bench/coldstart.ts); KB is what a cold start loads`,
      rows.map((row) => ({
        handler: row.handler,
        KB: row.kb.toFixed(0),
        "lazy chunks KB": `${row.lazyKb.toFixed(0)} in ${row.lazyChunks}`,
        "heaviest besides the SDK (KB)": describe(row.heaviest),
      })),
    );
    const sizes = rows.map((row) => row.kb).sort((a, b) => a - b);
    console.log(
      `bundles: ${rows.filter((row) => row.kb > goalKb).length} of ${rows.length} above ${goalKb} KB (goal 0); largest ${rows[0]!.handler} ${rows[0]!.kb.toFixed(0)} KB; median ${sizes[Math.floor(sizes.length / 2)]!.toFixed(0)} KB; total ${(sizes.reduce((sum, kb) => sum + kb, 0) / 1024).toFixed(1)} MB`,
    );
    mkdirSync(join(process.cwd(), ".cache"), { recursive: true });
    writeFileSync(join(process.cwd(), ".cache", "bundles.json"), JSON.stringify(rows, null, 2));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
