import { readdirSync, readFileSync } from "node:fs";
import { build } from "esbuild";
import { describe, expect, it } from "vitest";

/**
 * Every `defineOperation(…)` is annotated `@__PURE__`, so a Lambda bundles only its own operation of a group's
 * module, not the others' request and response schemas (which may bring libphonenumber-js and whole aggregates). The
 * annotation only drops a call whose arguments have no effects to the bundler: an interpolated string, an object
 * spread or an unannotated call in them (`pageSchema(…)`, an inline `v.object(…)`) is kept, and with it every schema
 * beside it. This bundles, for each operations module, one operation alone (as esbuild does for SST) and checks no
 * other operation of the module comes along.
 */

const directory = "core/http/operations";

async function operationsBundledWith(module: string, operation: string): Promise<string[]> {
  const result = await build({
    stdin: {
      contents: `import { ${operation} } from "#core/http/operations/${module}"; console.log(${operation});`,
      resolveDir: process.cwd(),
      loader: "ts",
    },
    bundle: true,
    platform: "node",
    format: "esm",
    target: "esnext",
    mainFields: ["module", "main"],
    minifySyntax: true,
    write: false,
    logLevel: "silent",
    external: ["@aws-sdk/*", "@smithy/*"],
  });
  return [...result.outputFiles[0]!.text.matchAll(/operationId: "(\w+)"/g)].map((match) => match[1]!);
}

describe("operations leave each other out of a bundle", () => {
  it("a bundle that uses one operation of a module carries no other operation of it", async () => {
    const extra: string[] = [];
    for (const file of readdirSync(directory).filter((name) => name.endsWith(".ts") && name !== "index.ts")) {
      const module = file.replace(/\.ts$/, "");
      const operations = [
        ...readFileSync(`${directory}/${file}`, "utf8").matchAll(/export const (\w+) = \/\* @__PURE__ \*\/ define/g),
      ].map((match) => match[1]!);
      if (operations.length < 2) continue;
      // The first two: a kept operation shows up in both (the first one's own bundle cannot show the first).
      for (const operation of operations.slice(0, 2)) {
        for (const other of await operationsBundledWith(module, operation)) {
          if (other !== operation) extra.push(`${module}: ${operation} bundles ${other}`);
        }
      }
    }
    expect([...new Set(extra)]).toEqual([]);
  }, 120_000);
});
