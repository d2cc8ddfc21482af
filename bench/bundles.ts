import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { Metafile } from "esbuild";
import { bundle, deployedHandlers } from "#bench/coldstart";
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
 * then describe those only). Writes `.cache/bundles.json`.
 */

const goalKb = 700;

/** Bytes per package (node_modules) or per `core/<aggregate>` directory, heaviest first. */
function weights(output: Metafile["outputs"][string]): [string, number][] {
  const bytes = new Map<string, number>();
  for (const [input, { bytesInOutput }] of Object.entries(output.inputs)) {
    const name =
      /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(input)?.[1] ??
      /^((?:core|functions|stacks)\/[^/]+)/.exec(input)?.[1] ??
      input;
    bytes.set(name, (bytes.get(name) ?? 0) + bytesInOutput);
  }
  return [...bytes].sort((a, b) => b[1] - a[1]);
}

/** The shortest import chain from the entry to the first input whose path contains `part`, by breadth-first search over the metafile. */
function chainTo(metafile: Metafile, entry: string, part: string): string[] | undefined {
  // Only inputs of the output: an import whose module was tree-shaken away explains nothing. A module that put no
  // bytes in (a barrel of re-exports, a package's index) is passed through, but is never the answer.
  const included = Object.values(metafile.outputs)[0]!.inputs;
  const previous = new Map<string, string | null>([[entry, null]]);
  const queue = [entry];
  while (queue.length) {
    const input = queue.shift()!;
    if (input.includes(part) && included[input]?.bytesInOutput) {
      const chain = [];
      for (let at: string | null = input; at !== null; at = previous.get(at)!) chain.unshift(at);
      return chain;
    }
    for (const { path } of metafile.inputs[input]?.imports ?? []) {
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
    const rows: { handler: string; kb: number; heaviest: [string, number][]; modules: Record<string, number> }[] = [];
    const handlers = deployedHandlers().filter((handler) => !only || only.some((part) => handler.includes(part)));
    for (const handler of handlers) {
      const metafile = await bundle(resolve(`${handler}.ts`), join(dir, `${handler.replaceAll("/", "_")}.mjs`));
      const output = Object.values(metafile.outputs)[0]!;
      const modules = Object.fromEntries(
        Object.entries(output.inputs)
          .filter(([input]) => !input.includes("node_modules/"))
          .map(([input, { bytesInOutput }]) => [input, bytesInOutput]),
      );
      rows.push({ handler, kb: output.bytes / 1024, heaviest: weights(output), modules });
      if (why) {
        const chain = chainTo(metafile, `${handler}.ts`, why);
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
      `bundles: ${rows.length} handlers bundled as SST v3 does (see bench/coldstart.ts)`,
      rows.map((row) => ({
        handler: row.handler,
        KB: row.kb.toFixed(0),
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
