import { keys } from "#core/db/keys";
import { warmReads } from "#core/db/warm";

export interface Organization {
  id: string;
  name: string;
  /** IANA zone used for schedules and as the last fallback for quiet hours. */
  timeZone: string;
  createdAt: string;
}

/** An organization's profile never changes once created (docs/decisions.md "Warm reads"); one not created yet is not remembered. */
const profileReads = warmReads({ rememberAbsent: false });

/** The organization's profile (a small module: authentication reads it on every cold credential). */
export async function organizationProfile(organizationId: string): Promise<Organization | undefined> {
  const Item = await profileReads.get(keys.organization(organizationId));
  return Item ? toOrganization(Item) : undefined;
}

export function toOrganization(item: Record<string, unknown>): Organization {
  return {
    id: item.id as string,
    name: item.name as string,
    timeZone: item.timeZone as string,
    createdAt: item.createdAt as string,
  };
}
