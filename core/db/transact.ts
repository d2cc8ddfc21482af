import { TransactionCanceledException, TransactionConflictException } from "@aws-sdk/client-dynamodb";
import { TransactWriteCommand, type TransactWriteCommandInput } from "@aws-sdk/lib-dynamodb";
import { db, tableName } from "#core/db/client";

type SdkTransactItem = NonNullable<TransactWriteCommandInput["TransactItems"]>[number];
type WithoutTable<T> = T extends object ? Omit<T, "TableName"> & { TableName?: string } : T;

/** The name a write carries through a transaction (a symbol: never sent to DynamoDB). */
const partName = Symbol("transactionPart");

/** One write of a transaction, as the document client takes it; the table is filled in by `transact`. */
export type TransactItem = { [K in keyof SdkTransactItem]: WithoutTable<SdkTransactItem[K]> } & { [partName]?: string };

type Body<K extends keyof SdkTransactItem> = NonNullable<TransactItem[K]>;

/**
 * Gives a write built elsewhere (a wallet change, a ledger entry, a reservation's close) the name a caller asks
 * about when the transaction is refused: `error.failed("wallet")`. The name travels with the write, however the
 * transaction's writes are assembled; several writes may share one name (any of them failing fails the part).
 */
export function part(name: string, write: TransactItem): TransactItem {
  return { ...write, [partName]: name };
}

/** The name of a write (`part`, `Transaction.put` …), if it has one. */
export const nameOf = (write: TransactItem): string | undefined => write[partName];

/** A transaction refused because the condition of one or more of its parts failed (not a conflict). */
export class TransactionConditionFailed extends Error {
  /** The part name of each failed write, in the order of `failedIndexes` (undefined for an unnamed write). */
  private readonly failedNames: (string | undefined)[];

  constructor(
    /** Positions of the failed writes, for this module's own message; callers ask by name (`failed`). */
    private readonly failedIndexes: number[],
    override readonly cause: unknown,
    names: readonly (string | undefined)[] = [],
  ) {
    const failedNames = failedIndexes.map((index) => names[index]);
    super(
      `Transaction condition failed on ${failedIndexes.map((index, at) => failedNames[at] ?? `item ${index}`).join(", ")}`,
    );
    this.name = "TransactionConditionFailed";
    this.failedNames = failedNames;
  }

  /** The names of the parts whose condition failed. */
  get failedParts(): string[] {
    return [...new Set(this.failedNames.filter((name) => name !== undefined))];
  }

  /** Whether the condition of the part `name` (any of its writes) failed. */
  failed(name: string): boolean {
    return this.failedNames.includes(name);
  }

  /** Whether every failed write belongs to one of `names` (e.g. only the once-only markers: it was done before). */
  failedOnlyIn(...names: string[]): boolean {
    return this.failedNames.every((name) => name !== undefined && names.includes(name));
  }
}

/** Work that must follow a committed transaction and never run without it (a metric, a fan-out). */
export type AfterCommit = () => void | Promise<void>;

/**
 * The named writes of one transaction and what follows their commit (terminal's `createTransaction`/`afterTx`
 * model): a caller writes `tx.put("reservation", …)` and, when the commit is refused, asks
 * `error.failed("reservation")` instead of counting positions. Producers that record something alongside a
 * change (`Events.item(org, input, tx)`) add their part and register its effect with `afterCommit`, which runs
 * once the commit is durable and never for a transaction that was refused.
 */
export class Transaction {
  readonly items: TransactItem[] = [];
  readonly effects: AfterCommit[] = [];

  put(name: string, put: Body<"Put">): this {
    return this.include(name, { Put: put });
  }

  update(name: string, update: Body<"Update">): this {
    return this.include(name, { Update: update });
  }

  delete(name: string, remove: Body<"Delete">): this {
    return this.include(name, { Delete: remove });
  }

  check(name: string, check: Body<"ConditionCheck">): this {
    return this.include(name, { ConditionCheck: check });
  }

  /** Adds writes built elsewhere as the part `name` (their own names, if any, give way to it). */
  include(name: string, ...writes: TransactItem[]): this {
    this.items.push(...writes.map((write) => part(name, write)));
    return this;
  }

  /** Adds writes keeping whatever names they carry (from `part`). */
  adopt(...writes: TransactItem[]): this {
    this.items.push(...writes);
    return this;
  }

  /**
   * Adds writes by position and returns the index of the first. The old API, kept where nobody asks which write
   * failed (core/calls, core/leads/reverify.ts); new code names its parts.
   */
  add(...writes: TransactItem[]): number {
    const index = this.items.length;
    this.items.push(...writes);
    return index;
  }

  afterCommit(effect: AfterCommit): void {
    this.effects.push(effect);
  }
}

const MAX_ATTEMPTS = 15;

/**
 * Writes the items in one transaction, then runs its after-commit effects.
 * Concurrent transactions on the same item conflict (DynamoDB cancels one with
 * `TransactionConflict`); those are retried with full-jitter backoff. A failed
 * condition is reported as TransactionConditionFailed naming the parts that failed.
 */
export async function transact(write: TransactItem[] | Transaction): Promise<void> {
  const transaction = write instanceof Transaction ? write : new Transaction().adopt(...write);
  const table = tableName();
  const names = transaction.items.map(nameOf);
  const transactItems = transaction.items.map(
    // Object.entries skips the symbol-keyed name: only the write itself goes to DynamoDB.
    (item) =>
      Object.fromEntries(
        Object.entries(item).map(([kind, body]) => [kind, { ...body, TableName: table }]),
      ) as SdkTransactItem,
  );
  for (let attempt = 1; ; attempt++) {
    try {
      await db().send(new TransactWriteCommand({ TransactItems: transactItems }));
      break;
    } catch (error) {
      const reasons = error instanceof TransactionCanceledException ? (error.CancellationReasons ?? []) : [];
      const failed = reasons.flatMap((reason, index) => (reason.Code === "ConditionalCheckFailed" ? [index] : []));
      if (error instanceof TransactionCanceledException && failed.length > 0)
        throw new TransactionConditionFailed(failed, error, names);
      const conflict =
        error instanceof TransactionConflictException ||
        (error instanceof TransactionCanceledException &&
          reasons.some((reason) => reason.Code === "TransactionConflict"));
      if (!conflict || attempt >= MAX_ATTEMPTS) throw error;
      await new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(1000, 20 * 2 ** attempt)));
    }
  }
  for (const effect of transaction.effects) await effect();
}
