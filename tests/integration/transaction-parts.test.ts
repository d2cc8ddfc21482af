import { beforeAll, describe, expect, it } from "vitest";
import { getItem } from "#core/db/items";
import { part, transact, Transaction, TransactionConditionFailed } from "#core/db/transact";
import { newId } from "#core/shared/ids";
import { applyStackEnv } from "#tests/helpers/stack";

/**
 * Issue 26: a transaction's writes carry names, so a caller asks `error.failed("reservation")` instead of knowing
 * which position the reservation had; effects registered with `afterCommit` run only once the commit is durable.
 */
describe("named transaction parts", () => {
  const organizationId = newId();
  const key = (name: string) => ({ pk: `ORG#${organizationId}`, sk: `TXTEST#${name}` });
  const create = (name: string) => ({ Item: { ...key(name), name }, ConditionExpression: "attribute_not_exists(pk)" });

  beforeAll(() => applyStackEnv());

  async function refusal(transaction: Transaction): Promise<TransactionConditionFailed> {
    const error = await transact(transaction).then(
      () => undefined,
      (failure: unknown) => failure,
    );
    expect(error).toBeInstanceOf(TransactionConditionFailed);
    return error as TransactionConditionFailed;
  }

  it("names the part whose condition failed, whatever its position, and runs no effect of a refused transaction", async () => {
    await transact(new Transaction().put("taken", create("taken")));
    let effects = 0;
    const transaction = new Transaction()
      .put("first", create(`first-${newId()}`))
      .include("claims", { Put: create(`claim-${newId()}`) }, { Put: create("taken") })
      .put("last", create(`last-${newId()}`));
    transaction.afterCommit(() => void effects++);

    const error = await refusal(transaction);
    expect(error.failed("claims")).toBe(true);
    expect(error.failed("first")).toBe(false);
    expect(error.failed("last")).toBe(false);
    expect(error.failedParts).toEqual(["claims"]);
    expect(error.failedOnlyIn("claims")).toBe(true);
    expect(error.failedOnlyIn("first")).toBe(false);
    expect(effects).toBe(0);
  });

  it("keeps a write's name however the writes are assembled (a builder's `part`, an array, `adopt`)", async () => {
    const wallet = part("wallet", {
      Update: {
        Key: key("missing-wallet"),
        UpdateExpression: "SET x = :x",
        ConditionExpression: "attribute_exists(pk)",
        ExpressionAttributeValues: { ":x": 1 },
      },
    });
    const fromArray = await transact([{ Put: create(`plain-${newId()}`) }, wallet]).then(
      () => undefined,
      (failure: unknown) => failure as TransactionConditionFailed,
    );
    expect(fromArray?.failed("wallet")).toBe(true);
    // Its message names the failed part, read from the position DynamoDB reports.
    expect(fromArray?.message).toBe("Transaction condition failed on wallet");

    const adopted = await refusal(new Transaction().put("mine", create(`mine-${newId()}`)).adopt(wallet));
    expect(adopted.failed("wallet")).toBe(true);
    expect(adopted.failedOnlyIn("mine")).toBe(false);
  });

  it("runs the effects after the commit, when the writes are already readable", async () => {
    const name = `durable-${newId()}`;
    const seen: unknown[] = [];
    const transaction = new Transaction().put("item", create(name));
    transaction.afterCommit(async () => void seen.push((await getItem(key(name), { consistent: true }))?.name));
    await transact(transaction);
    expect(seen).toEqual([name]);
  });
});
