import { db } from "#core/db/client";
import { sqs } from "#core/queue/client";

/** The error a simulated crash throws: the process died here. */
export class SimulatedCrash extends Error {}

/**
 * Kills this process's DynamoDB access right after the first write that moves
 * an item to one of `statuses` (an update, alone or in a transaction, that
 * assigns it to `status`): every later command fails, as if the Lambda died
 * between two steps. Answers the function that ends the crash ("the restart").
 * Works on the real DynamoDB Local: nothing of our storage is faked, only the
 * process is cut short.
 */
export function crashAfterWriting(statuses: string[]): () => void {
  return crashAfterWrite(writingStatus(statuses));
}

/** Kills this process's DynamoDB access right after the first command whose input (its JSON) matches `pattern`. */
export function crashAfterWrite(pattern: RegExp | ((input: unknown) => boolean)): () => void {
  return killSwitch(pattern).restart;
}

type UpdateInput = {
  UpdateExpression?: string;
  ExpressionAttributeNames?: Record<string, string>;
  ExpressionAttributeValues?: Record<string, unknown>;
};

/**
 * A command that sets `status` to one of `statuses` in an update (its own, or one of its transaction's), read through
 * its placeholders: the condition's statuses (where it moves from) do not count.
 */
export function writingStatus(statuses: string[]): (input: unknown) => boolean {
  return (input) => {
    const command = input as UpdateInput & { TransactItems?: { Update?: UpdateInput }[] };
    const updates = command.TransactItems ? command.TransactItems.map((item) => item.Update ?? {}) : [command];
    return updates.some(({ UpdateExpression = "", ExpressionAttributeNames = {}, ExpressionAttributeValues = {} }) => {
      const assignments = (/^SET (.*?)(?: REMOVE .*)?$/.exec(UpdateExpression)?.[1] ?? "").matchAll(
        /([#\w]+) = (:\w+)/g,
      );
      return [...assignments].some(([, name = "", value = ""]) => {
        const assigned = ExpressionAttributeValues[value] as unknown;
        const text = typeof assigned === "object" && assigned !== null ? (assigned as { S?: unknown }).S : assigned;
        return (ExpressionAttributeNames[name] ?? name) === "status" && statuses.includes(String(text));
      });
    });
  };
}

function killSwitch(pattern: RegExp | ((input: unknown) => boolean)): { restart: () => void; died: () => boolean } {
  const matches = pattern instanceof RegExp ? (input: unknown) => pattern.test(JSON.stringify(input)) : pattern;
  const name = `crash-${Math.random().toString(36).slice(2)}`;
  let dead = false;
  db().middlewareStack.add(
    (next) => async (args) => {
      if (dead) throw new SimulatedCrash("The process was killed.");
      const result = await next(args);
      if (matches(args.input)) dead = true;
      return result;
    },
    { step: "initialize", name },
  );
  return { restart: () => void db().middlewareStack.remove(name), died: () => dead };
}

/** Runs `work` in a process that dies right after writing one of `statuses` (it must die there), then "restarts". */
export async function dieAfterWriting(statuses: string[], work: () => Promise<unknown>): Promise<void> {
  const restart = crashAfterWriting(statuses);
  try {
    await work().then(
      () => Promise.reject(new Error(`The work never wrote ${statuses.join(" or ")}.`)),
      (error: unknown) => (error instanceof SimulatedCrash ? undefined : Promise.reject(error)),
    );
  } finally {
    restart();
  }
}

/**
 * Runs `work` (a whole request, which answers its own errors) in a process killed right after the command matching
 * `pattern`, then "restarts". Fails when the work never made that command.
 */
export async function killedAfterWrite(
  pattern: RegExp | ((input: unknown) => boolean),
  work: () => Promise<unknown>,
): Promise<void> {
  const { restart, died } = killSwitch(pattern);
  try {
    await work().catch(() => undefined);
  } finally {
    restart();
  }
  if (!died()) throw new Error(`The work never wrote anything matching ${String(pattern)}.`);
}

/** The error a simulated fault throws: a dependency that keeps failing. */
export class SimulatedFault extends Error {}

/**
 * Makes every DynamoDB command whose input (its JSON) contains all of `parts`
 * fail until the answered function is called: processing that keeps failing
 * on the same write, as a poison message does. Other commands run normally.
 */
export function faultWhen(...parts: string[]): (() => void) & { faulted: Promise<void> } {
  const name = `fault-${Math.random().toString(36).slice(2)}`;
  let faulted!: () => void;
  const firstFault = new Promise<void>((resolve) => (faulted = resolve));
  db().middlewareStack.add(
    (next) => async (args) => {
      if (matchesAll(args.input, parts)) {
        faulted();
        throw new SimulatedFault("The write keeps failing.");
      }
      return next(args);
    },
    { step: "initialize", name },
  );
  // `faulted` resolves at the first failure: when the processing it stops had got that far.
  return Object.assign(() => void db().middlewareStack.remove(name), { faulted: firstFault });
}

/**
 * Holds every DynamoDB command whose input (its JSON) contains all of `parts` until `release` resolves, then runs it:
 * processing slowed at that write, still under way while something else happens. `written()` says whether a held
 * command has completed, read at the very moment it is called (no I/O of its own).
 */
export function holdWhen(release: Promise<unknown>, ...parts: string[]): (() => void) & { written: () => boolean } {
  const name = `hold-${Math.random().toString(36).slice(2)}`;
  let written = false;
  db().middlewareStack.add(
    (next) => async (args) => {
      if (!matchesAll(args.input, parts)) return next(args);
      await release;
      const result = await next(args);
      written = true;
      return result;
    },
    { step: "initialize", name },
  );
  return Object.assign(() => void db().middlewareStack.remove(name), { written: () => written });
}

/** Runs `effect` once, right after the first DynamoDB command whose input contains all of `parts` has completed. */
export function afterCommand(effect: () => void, ...parts: string[]): () => void {
  const name = `after-${Math.random().toString(36).slice(2)}`;
  let done = false;
  db().middlewareStack.add(
    (next) => async (args) => {
      const result = await next(args);
      if (!done && matchesAll(args.input, parts)) {
        done = true;
        effect();
      }
      return result;
    },
    { step: "initialize", name },
  );
  return () => void db().middlewareStack.remove(name);
}

function matchesAll(input: unknown, parts: string[]): boolean {
  const json = JSON.stringify(input);
  return parts.every((part) => json.includes(part));
}

/** Makes this process's SQS sends fail until the answered function is called (a queue message that never leaves it). */
export async function failPublishes(): Promise<() => void> {
  const name = `no-publish-${Math.random().toString(36).slice(2)}`;
  const client = await sqs();
  client.middlewareStack.add(
    () => async () => {
      throw new Error("SQS is unreachable.");
    },
    { step: "initialize", name },
  );
  return () => void client.middlewareStack.remove(name);
}

/** A message this process sent to SQS: its envelope, its delay, and when (by `Date.now()`) it was sent. */
export interface PublishedMessage {
  envelope: { type: string; organizationId: string; data: Record<string, unknown> };
  delaySeconds: number;
  sentAt: number;
}

/**
 * Records this process's SQS sends (they still go to the queue) until the answered function is called: what a
 * consumer would receive, and with which delay.
 */
export async function watchPublishes(): Promise<{ published: PublishedMessage[]; stop: () => void }> {
  const name = `watch-publishes-${Math.random().toString(36).slice(2)}`;
  const published: PublishedMessage[] = [];
  const client = await sqs();
  client.middlewareStack.add(
    (next) => async (args) => {
      const input = args.input as {
        MessageBody?: string;
        DelaySeconds?: number;
        Entries?: { MessageBody: string; DelaySeconds?: number }[];
      };
      const sentAt = Date.now();
      const result = await next(args);
      for (const entry of input.Entries ?? (input.MessageBody ? [input as { MessageBody: string }] : [])) {
        const { MessageBody, DelaySeconds = 0 } = entry as { MessageBody: string; DelaySeconds?: number };
        published.push({ envelope: JSON.parse(MessageBody), delaySeconds: DelaySeconds, sentAt });
      }
      return result;
    },
    { step: "initialize", name },
  );
  return { published, stop: () => void client.middlewareStack.remove(name) };
}
