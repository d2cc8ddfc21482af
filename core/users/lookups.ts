import type { Role } from "#core/auth/actor";
import type { User } from "#core/users/schemas";
import { standingOf } from "#core/users/standing";
import { allUsers, readUser, userOfEmail } from "#core/users/store";

/**
 * The reads other aggregates ask of the people of an organization (routing, leads, messaging, automations, sign-in),
 * apart from `Users`' team and invitation verbs: those bring the profile's phone validation (libphonenumber-js,
 * ~123 KB) and the invitation mail into every bundle that only needs a user's standing. `Users` spreads them.
 */

/** The active user an e-mail signs in as; undefined when unknown or deactivated. */
export async function forSignIn(
  email: string,
): Promise<{ userId: string; organizationId: string; role: Role; name: string; email: string } | undefined> {
  const pointer = await userOfEmail(email.trim().toLowerCase());
  if (!pointer) return undefined;
  const user = await readUser(pointer.organizationId, pointer.userId);
  if (!user || user.status !== "Active") return undefined;
  return {
    userId: user.id,
    organizationId: pointer.organizationId,
    role: user.role,
    name: user.name,
    email: user.email,
  };
}

/** Whether a user of the organization exists and is active (warm-cached for a few seconds). */
export async function isActive(organizationId: string, userId: string): Promise<boolean> {
  return (await standingOf(organizationId, userId))?.active ?? false;
}

/** The stored role and status authentication acts on (a token's role claim is not trusted over it). */
export { standingOf as standing };

/** The organization's active owners, the first to join first (routing's `owner` fallback takes the first not away). */
export async function activeOwners(organizationId: string): Promise<User[]> {
  return (await allUsers(organizationId))
    .filter((user) => user.role === "owner" && user.status === "Active")
    .sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id));
}
