import { spawn } from "node:child_process";
import { existsSync, rmSync } from "node:fs";
import { deployRuns, graphFile, deployTestDir } from "./graph.ts";

/** Runs one mocked deploy in its own process (Pulumi's runtime is global) with exactly the given environment. */
function mockDeploy(stage: string, outFile: string, env: Record<string, string>): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["tests/deploy/mock-deploy.mjs", stage, outFile], {
      // Nothing from the shell running the tests: a variable set there must not decide what the test sees.
      env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", ...env },
      stdio: ["ignore", "inherit", "inherit"],
    });
    child.on("error", reject);
    child.on("exit", (code) =>
      code === 0 ? resolve() : reject(new Error(`mock deploy of ${stage} exited with ${code}; see the output above`)),
    );
  });
}

/** Deploys every stage of `deployRuns` under mocks before any assertion runs. */
export default async function setup(): Promise<void> {
  // Iterating on assertions only: DEPLOY_TEST_REUSE_GRAPHS=1 keeps the graphs of the last run.
  if (process.env.DEPLOY_TEST_REUSE_GRAPHS && deployRuns.every((run) => existsSync(graphFile(run.name)))) return;
  rmSync(deployTestDir, { recursive: true, force: true });
  for (const run of deployRuns) {
    const started = Date.now();
    await mockDeploy(run.stage, graphFile(run.name), run.env);
    console.log(`mock deploy ${run.name} took ${((Date.now() - started) / 1000).toFixed(1)} s`);
  }
}
