import { table } from "#core/db/items";
import { keys } from "#core/db/keys";
import type { TestOrganization } from "#tests/helpers/stack";

/**
 * The organization's stored items of these entities in every partition of it: its own (`ORG#<id>`) and those of the
 * items issue 27 keyed apart (`ORG#<id>#<sort key>`: leads, events, claims, messages, runs…). One consistent scan of
 * the table, as an operator would read it: tests look at storage this way, never the request paths.
 */
export async function organizationItems(
  org: TestOrganization,
  entities: readonly string[],
): Promise<Record<string, unknown>[]> {
  const partition = keys.organization(org.organizationId).pk;
  const items: Record<string, unknown>[] = [];
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const page = await table.scan({
      FilterExpression: "pk = :pk OR begins_with(pk, :prefix)",
      ExpressionAttributeValues: { ":pk": partition, ":prefix": `${partition}#` },
      ExclusiveStartKey,
      ConsistentRead: true,
    });
    items.push(...(page.Items ?? []));
    ExclusiveStartKey = page.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  return items.filter((item) => entities.includes(String(item.entity)));
}
