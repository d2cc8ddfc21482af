import { keys } from "#core/db/keys";
import { table, type QueryInput as OneQuery } from "#core/db/items";

/** A Query by named access pattern (core/db/indexes), paged here. */
export type QueryInput = Omit<OneQuery, "ExclusiveStartKey">;

/** Every page of a Query, one at a time (DynamoDB returns at most 1 MB per call). */
export async function* queryPages(input: QueryInput): AsyncGenerator<Record<string, unknown>[]> {
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await table.query({ ...input, ExclusiveStartKey: startKey });
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

/**
 * How many items a Query matches, evaluating at most `limit` of them (DynamoDB
 * still reads each one it counts); `more` when items beyond that were not evaluated.
 */
export async function queryCount(input: QueryInput, limit: number): Promise<{ count: number; more: boolean }> {
  let count = 0;
  let evaluated = 0;
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await table.query({
      ...input,
      Select: "COUNT",
      ExclusiveStartKey: startKey,
      Limit: limit - evaluated,
    });
    count += page.Count ?? 0;
    evaluated += page.ScannedCount ?? page.Count ?? 0;
    startKey = page.LastEvaluatedKey;
  } while (startKey && evaluated < limit);
  return { count, more: startKey !== undefined && (await goesOn(input, startKey)) };
}

/**
 * The first `limit` items a Query evaluates (Limit counts items read, before any
 * filter expression); `more` when the query goes on past them (DynamoDB returns
 * a key whenever Limit is reached, so that is checked by reading one more key).
 */
export async function queryUpTo(
  input: QueryInput,
  limit: number,
): Promise<{ items: Record<string, unknown>[]; more: boolean }> {
  const items: Record<string, unknown>[] = [];
  let evaluated = 0;
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await table.query({ ...input, ExclusiveStartKey: startKey, Limit: limit - evaluated });
    items.push(...(page.Items ?? []));
    evaluated += page.ScannedCount ?? page.Items?.length ?? 0;
    startKey = page.LastEvaluatedKey;
  } while (startKey && evaluated < limit);
  return { items, more: startKey !== undefined && (await goesOn(input, startKey)) };
}

/** Whether a Query has items after `startKey` (a LastEvaluatedKey may stand at the very end): reads one key. */
async function goesOn(input: QueryInput, startKey: Record<string, unknown>): Promise<boolean> {
  const probe = await table.query({ ...input, ExclusiveStartKey: startKey, Limit: 1, Select: "COUNT" });
  return (probe.ScannedCount ?? probe.Count ?? 0) > 0;
}

/** Items of the organization's partition whose sort key lies in [lower, upper]. */
export function organizationRange(
  organizationId: string,
  lower: string,
  upper: string,
  extra: Omit<QueryInput, "KeyConditionExpression"> = {},
) {
  return queryAll({
    ...extra,
    KeyConditionExpression: "pk = :pk AND sk BETWEEN :lower AND :upper",
    ExpressionAttributeValues: {
      ...extra.ExpressionAttributeValues,
      ":pk": keys.organization(organizationId).pk,
      ":lower": lower,
      ":upper": upper,
    },
  });
}

/**
 * Every item of the organization whose sort key starts with `prefix`, as a key
 * range (`BETWEEN prefix AND prefix~`): DynamoDB Local answers `begins_with` by
 * scanning the partition, which an organization with 100 000 leads makes slow.
 */
export function prefixItems(
  organizationId: string,
  prefix: string,
  extra: Omit<QueryInput, "KeyConditionExpression"> = {},
) {
  return organizationRange(organizationId, prefix, `${prefix}~`, extra);
}
