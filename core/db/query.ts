import { QueryCommand, type QueryCommandInput } from "@aws-sdk/lib-dynamodb";
import { db, tableName } from "#core/db/client";

export type QueryInput = Omit<QueryCommandInput, "TableName" | "ExclusiveStartKey">;

/** Every page of a Query, one at a time (DynamoDB returns at most 1 MB per call). */
export async function* queryPages(input: QueryInput): AsyncGenerator<Record<string, unknown>[]> {
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await db().send(new QueryCommand({ ...input, TableName: tableName(), ExclusiveStartKey: startKey }));
    yield page.Items ?? [];
    startKey = page.LastEvaluatedKey;
  } while (startKey);
}

/** Every item a Query matches, across pages. For bounded collections only: it holds them all in memory. */
export async function queryAll(input: QueryInput): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  for await (const page of queryPages(input)) items.push(...page);
  return items;
}

/** How many items a Query matches, across pages, without reading them. */
export async function queryCount(input: QueryInput): Promise<number> {
  let count = 0;
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await db().send(
      new QueryCommand({ ...input, TableName: tableName(), Select: "COUNT", ExclusiveStartKey: startKey }),
    );
    count += page.Count ?? 0;
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return count;
}
