import { execFile } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, inject } from "vitest";
import { projectRoot } from "#local/paths";
import { stackStatePath, writeJson, type StackState } from "#local/state";
import { baseUrl } from "#tests/helpers/stack";

const run = promisify(execFile);

export interface AdminResult {
  code: number;
  /** Parsed stdout when the command succeeded. */
  output: any;
  /** The first stderr line, parsed, when it failed. */
  error: any;
}

/**
 * `npm run admin -- <args>` as an operator runs it, against the test stack: the
 * suite's hooks write a state file naming the stack (as `npm start` does) and
 * remove it afterwards.
 */
export function adminCli(): (...args: string[]) => Promise<AdminResult> {
  let stateDir = "";
  beforeAll(async () => {
    stateDir = await mkdtemp(join(tmpdir(), "admin-cli-"));
    const state: StackState = {
      baseUrl: baseUrl(),
      env: inject("stackEnv"),
      pid: process.pid,
      startedAt: new Date().toISOString(),
    };
    await writeJson(stackStatePath(stateDir), state);
  });
  afterAll(async () => {
    await rm(stateDir, { recursive: true, force: true });
  });
  return async (...args) => {
    try {
      const { stdout } = await run(
        process.execPath,
        ["--import", "tsx", "local/admin.ts", ...args, "--state-dir", stateDir],
        { cwd: projectRoot },
      );
      return { code: 0, output: JSON.parse(stdout), error: undefined };
    } catch (failure) {
      const { code, stderr } = failure as { code: number; stderr: string };
      return { code, output: undefined, error: JSON.parse(stderr.split("\n")[0]!) };
    }
  };
}
