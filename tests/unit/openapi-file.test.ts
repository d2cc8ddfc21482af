import { execFile } from "node:child_process";
import { readFile } from "node:fs/promises";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { openApiPath, renderOpenApi } from "#local/write-openapi";

describe("docs/openapi.json", () => {
  it("is the contract the code generates (run `npm run openapi` after changing an operation)", async () => {
    process.env.TOKEN_SIGNING_KEY ??= "unused";
    expect(await readFile(openApiPath, "utf8")).toBe(renderOpenApi());
  });

  it("passes Redocly's recommended lint with no error and no warning", async () => {
    // The locally installed CLI (exact devDependency), offline: no telemetry, no update check.
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ["node_modules/@redocly/cli/bin/cli.js", "lint", openApiPath, "--format=json"],
      { env: { ...process.env, REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true" }, maxBuffer: 16 * 1024 * 1024 },
    ).catch((error: { stdout?: string }) => ({ stdout: error.stdout ?? "" }));
    const report = JSON.parse(stdout.slice(stdout.indexOf("{"))) as { totals: { errors: number; warnings: number }; problems: { message: string }[] };
    expect(report.problems.map((problem) => problem.message)).toEqual([]);
    expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
  });
});
