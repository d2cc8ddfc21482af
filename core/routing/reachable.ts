import { warmReads } from "#core/db/warm";
import { keys } from "#core/db/keys";
import * as UserLookups from "#core/users/lookups";
import type { AlertPreferences } from "#core/users/schemas";

/*
 * Whether an agent can be reached now, apart from `Routing` (rule matching, strategies, the settings): what calls and
 * alerts ask of routing, so their functions do not bundle lead assignment.
 */

/** Away marks, read for each pool member and remembered as long as their standing (a few seconds late on other instances). */
export const awayReads = warmReads({ ttlMs: 3_000, maxEntries: 5_000 });

/**
 * The user as calls and alerts reach them now: active and not away (undefined otherwise), with the phone and e-mail
 * of their profile. A lead's assignee is rung and told through this, so an away agent's calls go to the fallback.
 */
export async function reachableAgent(
  organizationId: string,
  userId: string,
): Promise<
  { userId: string; name: string; email: string; phone: string | null; alerts: AlertPreferences } | undefined
> {
  const [standing, away] = await Promise.all([
    UserLookups.standing(organizationId, userId),
    awayReads.get(keys.routingAway(organizationId, userId)),
  ]);
  if (!standing?.active || away?.away === true) return undefined;
  return { userId, name: standing.name, email: standing.email, phone: standing.phone, alerts: standing.alerts };
}
