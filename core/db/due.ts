import { queryPages } from "#core/db/query";

/** One entry of a sharded due index (gsi3 sort key `<dueAt>#<org>#<id>`). */
export type DueEntry = {
  item: Record<string, unknown>;
  seen: string;
  dueAt: string;
  organizationId: string;
  id: string;
};

/**
 * The entries of a sharded due index (gsi3) due up to `upTo` (ISO time), one
 * partition after the other, oldest first in each; `organizationId` keeps one
 * organization's (sweeps that tests run with a moved clock). `seen` (the sort
 * key read) is what a sweep's conditional claim names.
 */
export async function* dueEntries(
  partitions: readonly string[],
  upTo: string,
  organizationId?: string,
): AsyncGenerator<DueEntry> {
  for (const gsi3pk of partitions) {
    const pages = queryPages({
      index: "dueWork",
      KeyConditionExpression: "gsi3pk = :pk AND gsi3sk <= :upper",
      ExpressionAttributeValues: { ":pk": gsi3pk, ":upper": `${upTo}#~` },
    });
    for await (const items of pages) {
      for (const item of items) {
        const seen = String(item.gsi3sk);
        const [dueAt = "", org = "", id = ""] = seen.split("#");
        if (organizationId && org !== organizationId) continue;
        yield { item, seen, dueAt, organizationId: org, id };
      }
    }
  }
}
