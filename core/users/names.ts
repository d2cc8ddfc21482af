import { getItems } from "#core/db/items";
import { keys } from "#core/db/keys";

/** User id → name of these users of the organization (one batch read); a small module, so the analytics report loads no user handling. */
export async function userNames(organizationId: string, userIds: string[]): Promise<Map<string, string>> {
  if (userIds.length === 0) return new Map();
  const items = await getItems(
    userIds.map((userId) => keys.user(organizationId, userId)),
    { attributes: ["id", "name"] },
  );
  return new Map(items.map((item) => [String(item.id), String(item.name)]));
}
