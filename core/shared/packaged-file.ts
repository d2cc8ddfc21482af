import { readFile } from "node:fs/promises";
import { join } from "node:path";

/**
 * A file copied into the Lambda package beside the handler (`copyFiles` in stacks/definitions.ts), else (local stack,
 * tests) where the repository keeps it: for what a function serves or reads as it is, rather than bundling it as code
 * compiled at every cold start.
 */
export function packagedFile(deployedName: string, localPath: () => string): Promise<string> {
  const taskRoot = process.env.LAMBDA_TASK_ROOT;
  return readFile(taskRoot ? join(taskRoot, deployedName) : localPath(), "utf8");
}

/** `read()` once per instance, on first use; a failed read is tried again on the next call. */
export function onceRead<T>(read: () => Promise<T>): () => Promise<T> {
  let pending: Promise<T> | undefined;
  return () => {
    pending ??= read();
    pending.catch(() => (pending = undefined));
    return pending;
  };
}
