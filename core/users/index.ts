import type { Role } from "#core/auth/actor";
import type { User } from "#core/users/schemas";
import { acceptInvitation, invite, listInvitations, revokeInvitation } from "#core/users/invitations";
import { allUsers, standingOf, userOfEmail, readUser } from "#core/users/store";
import { signUp } from "#core/users/sign-up";
import { addUser, changeRole, currentUser, deactivate, getUser, listUsers, updateProfile } from "#core/users/team";

export * from "#core/users/schemas";
export { ListUsersSchema, UpdateProfileSchema } from "#core/users/team";
export { ListInvitationsSchema } from "#core/users/invitations";
export { SignUpSchema, SignedUpSchema } from "#core/users/sign-up";

/**
 * The people of an organization: stored users with a role and a status, invitations by e-mail, and what
 * authentication and sign-in ask of them. One e-mail belongs to at most one user of one organization
 * (docs/decisions.md "One organization per e-mail"): sign-in finds the organization from the address alone.
 */
export const Users = {
  /** The active user an e-mail signs in as; undefined when unknown or deactivated. */
  async forSignIn(
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
  },
  /** Whether a user of the organization exists and is active (warm-cached for a few seconds). */
  async isActive(organizationId: string, userId: string): Promise<boolean> {
    return (await standingOf(organizationId, userId))?.active ?? false;
  },
  /** The stored role and status authentication acts on (a token's role claim is not trusted over it). */
  standing: standingOf,
  /** The organization's active owners, the first to join first (routing's `owner` fallback takes the first not away). */
  async activeOwners(organizationId: string): Promise<User[]> {
    return (await allUsers(organizationId))
      .filter((user) => user.role === "owner" && user.status === "Active")
      .sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id));
  },
  acceptInvitation,
  invite,
  listInvitations,
  revokeInvitation,
  add: addUser,
  signUp,
  me: currentUser,
  updateMe: updateProfile,
  list: listUsers,
  get: getUser,
  changeRole,
  deactivate,
};
