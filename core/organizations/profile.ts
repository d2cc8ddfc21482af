import { keys } from "#core/db/keys";
import { warmReads } from "#core/db/warm";

export type Organization = {
  id: string;
  name: string;
  /** IANA zone used for schedules and as the last fallback for quiet hours. */
  timeZone: string;
  /** The business's phone for leads to call (E.164), null when not given. */
  phone: string | null;
  website: string | null;
  createdAt: string;
  modifiedAt: string | null;
};

/**
 * An organization's profile changes rarely (an owner edits it in Settings; docs/decisions.md "Warm reads"): read once
 * per warm instance every 30 s; the instance that changes it forgets it at once. One not created yet is not remembered.
 */
const profileReads = warmReads({ rememberAbsent: false });

/** The organization's profile (a small module: authentication reads it on every cold credential). */
export async function organizationProfile(organizationId: string): Promise<Organization | undefined> {
  const Item = await profileReads.get(keys.organization(organizationId));
  return Item ? toOrganization(Item) : undefined;
}

/** Drops this instance's remembered profile (after a change). */
export function forgetOrganizationProfile(organizationId: string): void {
  profileReads.forget(keys.organization(organizationId));
}

export function toOrganization(item: Record<string, unknown>): Organization {
  return {
    id: item.id as string,
    name: item.name as string,
    timeZone: item.timeZone as string,
    // Organizations created before the profile was editable hold neither.
    phone: (item.phone as string | null | undefined) ?? null,
    website: (item.website as string | null | undefined) ?? null,
    createdAt: item.createdAt as string,
    modifiedAt: (item.modifiedAt as string | null | undefined) ?? null,
  };
}
