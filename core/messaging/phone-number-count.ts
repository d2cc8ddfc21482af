import { keys } from "#core/db/keys";
import { prefixItems } from "#core/db/query";

/** How many numbers the organization holds; a small module, so the analytics report loads no carrier adapter. */
export async function phoneNumberCount(organizationId: string): Promise<number> {
  return (await prefixItems(organizationId, keys.phoneNumberPrefix(organizationId).skPrefix, { ProjectionExpression: "sk" })).length;
}
