import { SourceEntity } from "#core/db/entities/sources";
import { queryAll } from "#core/db/query";

/** The id and name of every source of the organization; a small module, so the analytics report loads no source handling. */
export async function sourceNames(organizationId: string): Promise<{ id: string; name: string }[]> {
  const items = await queryAll(
    SourceEntity.query(
      "collection",
      { organizationId },
      { range: { beginsWith: SourceEntity.sortKey("collection", { organizationId }) }, attributes: ["id", "name"] },
    ),
  );
  return items.map((item) => ({ id: String(item.id), name: String(item.name) }));
}
