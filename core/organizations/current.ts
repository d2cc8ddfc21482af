import { OrganizationEntity } from "#core/db/entities/organizations";
import { toOrganization, type Organization } from "#core/organizations/profile";

/**
 * The organization's profile read consistently (undefined when absent), for what must not act on a stale one. A
 * module apart from `Organizations` (which names it `current`), so the automation schedule bundles no API keys or audit.
 */
export async function currentOrganization(organizationId: string): Promise<Organization | undefined> {
  const stored = await OrganizationEntity.get({ organizationId }, { consistent: true });
  return stored ? toOrganization(stored) : undefined;
}
