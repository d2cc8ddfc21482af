import { keys } from "#core/db/keys";
import { prefixItems } from "#core/db/query";

/** How many numbers the organization holds; a small module, so the analytics report loads no carrier adapter. */
export async function phoneNumberCount(organizationId: string): Promise<number> {
  return (
    await prefixItems(organizationId, keys.phoneNumberPrefix(organizationId).skPrefix, { ProjectionExpression: "sk" })
  ).length;
}

/** The organization's numbers paused for carrier filtering (the analytics report's needsAttention), read with the count's query. */
export async function phoneNumberSummary(
  organizationId: string,
): Promise<{ count: number; paused: { id: string; phoneNumber: string; reason: string }[] }> {
  const items = await prefixItems(organizationId, keys.phoneNumberPrefix(organizationId).skPrefix, {
    ProjectionExpression: "id, phoneNumber, paused",
  });
  const paused = items
    .filter((item) => item.paused)
    .map((item) => ({
      id: String(item.id),
      phoneNumber: String(item.phoneNumber),
      reason: String((item.paused as { reason: string }).reason),
    }));
  return { count: items.length, paused };
}
