import { PhoneNumberEntity } from "#core/db/entities/phone-numbers";
import { queryAll } from "#core/db/query";

/** The organization's numbers (their creation index, then the items: each is in a partition of its own). */
function numbers(organizationId: string) {
  return queryAll(PhoneNumberEntity.query("byCreation", { organizationId }));
}

/** How many numbers the organization holds; a small module, so the analytics report loads no carrier adapter. */
export async function phoneNumberCount(organizationId: string): Promise<number> {
  return (await numbers(organizationId)).length;
}

/** The organization's numbers paused for carrier filtering (the analytics report's needsAttention), read with the count's query. */
export async function phoneNumberSummary(
  organizationId: string,
): Promise<{ count: number; paused: { id: string; phoneNumber: string; reason: string }[] }> {
  const items = await numbers(organizationId);
  const paused = items
    .filter((item) => item.paused)
    .map((item) => ({
      id: String(item.id),
      phoneNumber: String(item.phoneNumber),
      reason: String((item.paused as { reason: string }).reason),
    }));
  return { count: items.length, paused };
}
