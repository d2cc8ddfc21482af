import { resolve } from "node:path";
import { build, type Metafile } from "esbuild";
import { describe, expect, it } from "vitest";
import { deployedHandlers } from "#bench/coldstart";

/**
 * package.json declares our modules free of side effects except the queue declarations (`core/**\/queue.ts`), so
 * esbuild leaves out of a Lambda's bundle a module none of whose exports its path uses. The one thing a module does
 * at import is declaring queue message types (`defineMessage` registers them). `publishAll` looks a declaration up
 * by its type name too, but every envelope is built from the declaration object (`envelope(Declaration, …)`), so its
 * module is in the bundle; a consumer's `subscribe` names its types as strings, and refuses at cold start a type
 * whose declaration is not loaded. This checks, with the bundler SST uses, that every consumer still carries every
 * declaration its imports reach when side effects are ignored.
 */

async function queueModules(entry: string, honourSideEffects: boolean): Promise<{ all: string[]; queues: string[] }> {
  const result = await build({
    entryPoints: [resolve(`${entry}.ts`)],
    bundle: true,
    platform: "node",
    format: "esm",
    target: "esnext",
    mainFields: ["module", "main"],
    write: false,
    metafile: true,
    logLevel: "silent",
    // Ignoring annotations also ignores package.json "sideEffects": every imported module is kept.
    ignoreAnnotations: !honourSideEffects,
    external: ["@aws-sdk/*", "@smithy/*"],
  });
  const inputs = Object.entries(Object.values((result.metafile as Metafile).outputs)[0]!.inputs)
    .filter(([, { bytesInOutput }]) => bytesInOutput > 0)
    .map(([input]) => input);
  return { all: inputs, queues: inputs.filter((input) => /^core\/.+\/queue\.ts$/.test(input)).sort() };
}

describe("bundles keep the queue declarations (package.json sideEffects)", () => {
  it("every queue consumer carries every declaration its imports reach", async () => {
    const checked: string[] = [];
    const missing: string[] = [];
    for (const handler of deployedHandlers()) {
      const bundled = await queueModules(handler, true);
      if (!bundled.all.includes("core/queue/subscribe.ts")) continue;
      checked.push(handler);
      const reached = await queueModules(handler, false);
      for (const queue of reached.queues)
        if (!bundled.queues.includes(queue)) missing.push(`${handler} lacks ${queue}`);
    }
    expect(checked.length).toBeGreaterThan(5);
    expect(missing).toEqual([]);
  }, 600_000);
});
