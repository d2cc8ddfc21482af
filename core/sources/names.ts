import { keys } from "#core/db/keys";
import { prefixItems } from "#core/db/query";

/** The id and name of every source of the organization; a small module, so the analytics report loads no source handling. */
export async function sourceNames(organizationId: string): Promise<{ id: string; name: string }[]> {
  const items = await prefixItems(organizationId, keys.sourcePrefix(organizationId).skPrefix, {
    ProjectionExpression: "id, #name",
    ExpressionAttributeNames: { "#name": "name" },
  });
  return items.map((item) => ({ id: String(item.id), name: String(item.name) }));
}
