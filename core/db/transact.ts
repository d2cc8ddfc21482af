import { TransactionCanceledException, TransactionConflictException } from "@aws-sdk/client-dynamodb";
import { TransactWriteCommand, type TransactWriteCommandInput } from "@aws-sdk/lib-dynamodb";
import { db, tableName } from "#core/db/client";

type SdkTransactItem = NonNullable<TransactWriteCommandInput["TransactItems"]>[number];
type WithoutTable<T> = T extends object ? Omit<T, "TableName"> & { TableName?: string } : T;

/** One write of a transaction, as the document client takes it; the table is filled in by `transact`. */
export type TransactItem = { [K in keyof SdkTransactItem]: WithoutTable<SdkTransactItem[K]> };

/** A transaction refused because the condition of item `index` failed (not a conflict). */
export class TransactionConditionFailed extends Error {
  constructor(
    readonly failedIndexes: number[],
    override readonly cause: unknown,
  ) {
    super(`Transaction condition failed on item(s) ${failedIndexes.join(", ")}`);
    this.name = "TransactionConditionFailed";
  }
}

/** Work that must follow a committed transaction and never run without it (a metric, a fan-out). */
export type AfterCommit = () => void | Promise<void>;

/**
 * The writes of one transaction and what follows their commit. Producers that
 * record something alongside a change (`Events.item(org, input, tx)`) add both
 * their item and its after-commit effect here, so the effect runs once the
 * commit succeeded and never for a transaction that was refused.
 */
export class Transaction {
  readonly items: TransactItem[] = [];
  readonly effects: AfterCommit[] = [];

  /** Adds writes; returns the index of the first (for `TransactionConditionFailed.failedIndexes`). */
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
 * condition is reported as TransactionConditionFailed with the indexes of the
 * items that failed.
 */
export async function transact(write: TransactItem[] | Transaction): Promise<void> {
  const transaction = write instanceof Transaction ? write : Object.assign(new Transaction(), { items: write });
  const table = tableName();
  const transactItems = transaction.items.map(
    (item) => Object.fromEntries(Object.entries(item).map(([kind, body]) => [kind, { ...body, TableName: table }])) as SdkTransactItem,
  );
  for (let attempt = 1; ; attempt++) {
    try {
      await db().send(new TransactWriteCommand({ TransactItems: transactItems }));
      break;
    } catch (error) {
      const reasons = error instanceof TransactionCanceledException ? (error.CancellationReasons ?? []) : [];
      const failed = reasons.flatMap((reason, index) => (reason.Code === "ConditionalCheckFailed" ? [index] : []));
      if (error instanceof TransactionCanceledException && failed.length > 0) throw new TransactionConditionFailed(failed, error);
      const conflict =
        error instanceof TransactionConflictException ||
        (error instanceof TransactionCanceledException && reasons.some((reason) => reason.Code === "TransactionConflict"));
      if (!conflict || attempt >= MAX_ATTEMPTS) throw error;
      await new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(1000, 20 * 2 ** attempt)));
    }
  }
  for (const effect of transaction.effects) await effect();
}
