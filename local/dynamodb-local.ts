import { execFile, spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readdir, rename, rm } from "node:fs/promises";
import { dirname, join } from "node:path";
import { promisify } from "node:util";
import { freePort, waitFor } from "#local/net";
import { projectRoot } from "#local/paths";

const run = promisify(execFile);

/** The npm package that ships the official DynamoDB Local jar (fetched with `npm pack`, never installed). */
const simulatorPackage = "amplify-dynamodb-simulator@2.9.30";

export interface DynamoDbLocal {
  endpoint: string;
  port: number;
  stop(): Promise<void>;
}

export interface DynamoDbLocalOptions {
  /** Keep data in memory only (tests); otherwise data lives in `dbPath`. */
  inMemory?: boolean;
  dbPath?: string;
  port?: number;
  cacheDir?: string;
  /** `startup` (default) favours a quick JVM start; `throughput` lets the JIT optimise fully (benchmarks). */
  optimizeFor?: "startup" | "throughput";
}

/**
 * Returns the folder holding DynamoDBLocal.jar, fetching the npm tarball into the
 * git-ignored cache on first use. Extraction goes to a temporary folder renamed
 * into place, so two processes starting at once never see half a jar.
 */
export async function ensureDynamoDbLocal(cacheDir = join(projectRoot, ".cache", "dynamodb-local")): Promise<string> {
  const emulatorDir = join(cacheDir, "emulator");
  if (existsSync(join(emulatorDir, "DynamoDBLocal.jar"))) return emulatorDir;
  await mkdir(cacheDir, { recursive: true });
  const work = await mkdtemp(join(cacheDir, "download-"));
  try {
    await run("npm", ["pack", simulatorPackage, "--pack-destination", work, "--silent"], { cwd: work });
    const tarball = (await readdir(work)).find((name) => name.endsWith(".tgz"));
    if (!tarball) throw new Error(`npm pack ${simulatorPackage} produced no tarball`);
    await run("tar", ["xzf", join(work, tarball), "-C", work, "package/emulator"]);
    await rename(join(work, "package", "emulator"), emulatorDir).catch((error: NodeJS.ErrnoException) => {
      if (!existsSync(join(emulatorDir, "DynamoDBLocal.jar"))) throw error;
    });
  } finally {
    await rm(work, { recursive: true, force: true });
  }
  return emulatorDir;
}

/**
 * Starts DynamoDB Local as a child JVM and waits until it answers.
 *
 * The JVM runs under a tiny shell watchdog that kills it when our stdin pipe
 * closes, so it also goes away when this process dies without cleaning up.
 */
export async function startDynamoDbLocal(options: DynamoDbLocalOptions = {}): Promise<DynamoDbLocal> {
  const emulatorDir = await ensureDynamoDbLocal(options.cacheDir);
  const port = options.port ?? (await freePort());
  const storage = options.inMemory
    ? ["-inMemory"]
    : ["-dbPath", options.dbPath ?? join(projectRoot, ".local", "dynamodb")];
  if (!options.inMemory) await mkdir(storage[1]!, { recursive: true });
  const java = [
    "java",
    // C1-only JIT and the serial collector halve the JVM's start on a busy 2-core machine.
    ...(options.optimizeFor === "throughput" ? [] : ["-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC"]),
    `-Djava.library.path=${join(emulatorDir, "DynamoDBLocal_lib")}`,
    "-jar",
    join(emulatorDir, "DynamoDBLocal.jar"),
    "-port",
    String(port),
    "-sharedDb",
    "-disableTelemetry",
    ...storage,
  ];
  const watchdog = 'exec 3<&0; "$@" <&- & j=$!; (read _ <&3; kill $j 2>/dev/null) & wait $j';
  const child = spawn("sh", ["-c", watchdog, "dynamodb-local", ...java], {
    stdio: ["pipe", "ignore", "pipe"],
    // DynamoDB Local writes a metadata file into its working directory: keep it in the cache.
    cwd: dirname(emulatorDir),
    detached: true,
  });
  const stderr: string[] = [];
  child.stderr?.on("data", (chunk: Buffer) => stderr.push(chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const killOnExit = () => killGroup(child, "SIGKILL");
  process.once("exit", killOnExit);

  const endpoint = `http://127.0.0.1:${port}`;
  const ready = waitFor(async () => (await fetch(endpoint, { method: "POST" })).status > 0, 60_000, "DynamoDB Local");
  const died = exited.then(() => {
    throw new Error(`DynamoDB Local exited: ${stderr.join("").trim() || "no output (is Java 17+ on the PATH?)"}`);
  });
  try {
    await Promise.race([ready, died]);
  } catch (error) {
    killGroup(child, "SIGKILL");
    throw error;
  }
  died.catch(() => undefined);

  return {
    endpoint,
    port,
    async stop() {
      process.off("exit", killOnExit);
      if (child.exitCode !== null) return;
      child.stdin?.end();
      const timer = setTimeout(() => killGroup(child, "SIGKILL"), 5_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined || child.exitCode !== null) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // already gone
  }
}
