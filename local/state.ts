import { existsSync } from "node:fs";
import { mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { projectRoot } from "#local/paths";

/** Where `npm start` keeps its data, secrets and credentials (git-ignored). */
export const defaultStateDir = join(projectRoot, ".local");

/** What a running stack tells other processes (the admin CLI) about itself: `<stateDir>/stack.json`. */
export interface StackState {
  baseUrl: string;
  /** The environment the stack's functions run with (table name, queue URLs, endpoints, auth settings). */
  env: Record<string, string>;
  pid: number;
  startedAt: string;
}

/** `.local/credentials.json`: everything needed to call the local API right away. */
export interface LocalCredentials {
  baseUrl: string;
  organizationId: string;
  apiKey: string;
  userToken: string;
  sourceId: string | null;
  sourceApiKey: string | null;
  /** The development owner's dashboard sign-in (printed by `npm start`). */
  ownerLogin?: { email: string; password: string };
}

export const stackStatePath = (stateDir: string) => join(stateDir, "stack.json");
export const credentialsPath = (stateDir: string) => join(stateDir, "credentials.json");

export async function writeJson(file: string, value: unknown): Promise<void> {
  await mkdir(join(file, ".."), { recursive: true });
  await writeFile(file, `${JSON.stringify(value, null, 2)}\n`, { mode: 0o600 });
}

export async function readJson<T>(file: string): Promise<T | undefined> {
  return existsSync(file) ? (JSON.parse(await readFile(file, "utf8")) as T) : undefined;
}

/** The running stack's state, or undefined when none is running (a stale file of a dead process is ignored). */
export async function readStackState(stateDir: string): Promise<StackState | undefined> {
  const state = await readJson<StackState>(stackStatePath(stateDir));
  if (!state) return undefined;
  try {
    process.kill(state.pid, 0);
    return state;
  } catch {
    return undefined;
  }
}

export async function removeStackState(stateDir: string): Promise<void> {
  await rm(stackStatePath(stateDir), { force: true });
}
