import { TransactionCanceledException, TransactionConflictException } from "@aws-sdk/client-dynamodb";
import { TransactWriteCommand, type TransactWriteCommandInput } from "@aws-sdk/lib-dynamodb";
import { db } from "#core/db/client";

/** One item of a DynamoDB transaction, as the document client takes it. */
export type TransactItem = NonNullable<TransactWriteCommandInput["TransactItems"]>[number];

/** A transaction refused because the condition of item `index` failed (not a conflict). */
export class TransactionConditionFailed extends Error {
  constructor(
    readonly failedIndexes: number[],
    override readonly cause: TransactionCanceledException,
  ) {
    super(`Transaction condition failed on item(s) ${failedIndexes.join(", ")}`);
    this.name = "TransactionConditionFailed";
  }
}

const MAX_ATTEMPTS = 15;

/**
 * Writes the items in one transaction. Concurrent transactions on the same
 * wallet conflict (DynamoDB cancels one with `TransactionConflict`); those are
 * retried with full-jitter backoff. A failed condition is reported as
 * TransactionConditionFailed with the indexes of the items that failed.
 */
export async function transact(items: TransactItem[]): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await db().send(new TransactWriteCommand({ TransactItems: items }));
      return;
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
}
