import { keys } from "#core/db/keys";
import { warmReads } from "#core/db/warm";
import { roleNamed } from "#core/auth/actor";
import { defaultAlerts, type AlertPreferences, type User } from "#core/users/schemas";

type WorkingHours = User["workingHours"];

/**
 * A user's role and status as authentication sees them, remembered in the warm instance for a few seconds: a
 * deactivated user (or a changed role) is refused within `standingMs` on every instance, at one read per user per
 * `standingMs` per instance.
 */
export const standingMs = 3_000;
const standingReads = warmReads({ ttlMs: standingMs, maxEntries: 5_000 });

export async function standingOf(organizationId: string, userId: string) {
  const item = await standingReads.get(keys.user(organizationId, userId));
  const role = item ? roleNamed(item.role) : undefined;
  if (!item || !role) return undefined;
  return {
    role,
    active: item.status === "Active",
    name: item.name as string,
    email: item.email as string,
    // When routing may give the user a lead (core/routing), read with the standing rather than again.
    timeZone: (item.timeZone as string | null | undefined) ?? null,
    workingHours: (item.workingHours as WorkingHours | undefined) ?? [],
    // Where the user is reached for bridged calls and alerts (core/routing `reachable`).
    phone: (item.phone as string | null | undefined) ?? null,
    alerts: (item.alerts as AlertPreferences | undefined) ?? defaultAlerts,
  };
}

/** Drops this instance's remembered standing after a change it made (other instances follow within `standingMs`). */
export function forgetStanding(organizationId: string, userId: string): void {
  standingReads.forget(keys.user(organizationId, userId));
}
