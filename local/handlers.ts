import { randomUUID } from "node:crypto";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { Context } from "aws-lambda";
import { runWithQueueGrant } from "#core/config";
import type { HandlerDefinition } from "#stacks/definitions";
import { projectRoot } from "#local/paths";
import { localRegion } from "#local/resources";
import { installSimulator } from "#core/providers/simulator/install";

// The local stack runs the carrier simulator, which deployed functions never bundle (core/providers/index.ts).
installSimulator();

/** A Lambda handler as our functions export it (async, no callback). */
export type LambdaHandler<TEvent = unknown, TResult = unknown> = (
  event: TEvent,
  context: Context,
) => Promise<TResult> | TResult;

const loaded = new Map<string, Promise<LambdaHandler>>();

/**
 * The handler of a manifest entry, run as its stack deploys it: every invocation
 * may send only to the queues of its `sendsTo` (see runWithQueueGrant), so a
 * missing grant fails here as it fails in AWS.
 */
export async function loadFunction(definition: HandlerDefinition): Promise<LambdaHandler> {
  const handler = await loadHandler(definition.handler);
  const sendsTo = definition.sendsTo ?? [];
  return (event, context) => runWithQueueGrant(sendsTo, () => handler(event, context));
}

/**
 * Imports the module named by a handler spec (`functions/automations/create.handler`,
 * as in definitions.ts and SST) on first use and caches it. A failed import is not
 * cached, so a file added while the stack runs is picked up by the next call.
 */
function loadHandler(spec: string): Promise<LambdaHandler> {
  let handler = loaded.get(spec);
  if (!handler) {
    handler = importHandler(spec);
    loaded.set(spec, handler);
    handler.catch(() => loaded.delete(spec));
  }
  return handler;
}

async function importHandler(spec: string): Promise<LambdaHandler> {
  const dot = spec.lastIndexOf(".");
  const file = `${spec.slice(0, dot)}.ts`;
  const exportName = spec.slice(dot + 1);
  const module = (await import(pathToFileURL(join(projectRoot, file)).href)) as Record<string, unknown>;
  const handler = module[exportName];
  if (typeof handler !== "function") throw new Error(`${file} has no exported function "${exportName}"`);
  return handler as LambdaHandler;
}

/** Lambda's function name for a handler spec: `functions/automations/create.handler` → `automations-create`. */
export function functionName(spec: string): string {
  return spec
    .slice(0, spec.lastIndexOf("."))
    .replace(/^functions\//, "")
    .replaceAll("/", "-");
}

/** A Lambda-like invocation context with a running deadline. */
export function lambdaContext(name: string, timeoutMs: number): Context {
  const deadline = Date.now() + timeoutMs;
  const unsupported = () => {
    throw new Error("Callback-style completion is not supported; return a promise");
  };
  return {
    callbackWaitsForEmptyEventLoop: true,
    functionName: name,
    functionVersion: "$LATEST",
    invokedFunctionArn: `arn:aws:lambda:${localRegion}:000000000000:function:${name}`,
    memoryLimitInMB: "1024",
    awsRequestId: randomUUID(),
    logGroupName: `/aws/lambda/${name}`,
    logStreamName: `local/${randomUUID()}`,
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: unsupported,
    fail: unsupported,
    succeed: unsupported,
  };
}

/** An invocation that ran past its timeout (Lambda ends it; API Gateway answers 503). */
export class InvocationTimeout extends Error {}

/** Runs `work`, rejecting with InvocationTimeout once `timeoutMs` passes. */
export async function withTimeout<T>(work: Promise<T>, timeoutMs: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new InvocationTimeout(`${what} timed out after ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
