#!/usr/bin/env node
/**
 * Writes `.sst/platform` (SST's component sources, `config.d.ts` and their
 * Pulumi dependencies) so `tsc -p stacks/tsconfig.json` can type-check the
 * infrastructure without AWS credentials.
 *
 * `sst install` normally downloads Bun and Pulumi from GitHub. Here it needs
 * only the npm registry: the platform sources ship inside the `sst-<os>-<arch>`
 * binary package, SST_SKIP_DEPENDENCY_CHECK skips the Bun/Pulumi download, and
 * SST_NO_BUN makes SST fetch the platform's packages with npm instead of Bun.
 *
 * Skipped when the installed platform matches the sst version and sst.config.ts.
 */
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const platform = join(root, ".sst", "platform");
const stampFile = join(platform, "install-stamp");

const sstVersion = JSON.parse(readFileSync(join(root, "node_modules", "sst", "package.json"), "utf8")).version;
const stamp = createHash("sha256")
  .update(sstVersion)
  .update(readFileSync(join(root, "sst.config.ts")))
  .digest("hex");

const current =
  existsSync(join(platform, "config.d.ts")) &&
  existsSync(join(platform, "node_modules", "@pulumi", "pulumi")) &&
  existsSync(stampFile) &&
  readFileSync(stampFile, "utf8") === stamp;

if (current) {
  console.log(`.sst/platform is current (sst ${sstVersion}); skipping sst install`);
  process.exit(0);
}

console.log(`Installing the SST ${sstVersion} platform into .sst/platform (npm registry only)…`);
const result = spawnSync(process.execPath, [join(root, "node_modules", "sst", "bin", "sst.mjs"), "install"], {
  cwd: root,
  stdio: "inherit",
  env: {
    ...process.env,
    SST_STAGE: process.env.SST_STAGE ?? "ci",
    SST_SKIP_DEPENDENCY_CHECK: "1",
    SST_NO_BUN: "1",
    SST_TELEMETRY_DISABLED: "1",
  },
});
if (result.status !== 0 || !existsSync(join(platform, "config.d.ts"))) {
  console.error("sst install failed; run it again with --print-logs, or see .sst/log/sst.log");
  process.exit(result.status || 1);
}
writeFileSync(stampFile, stamp);
