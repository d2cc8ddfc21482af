import { acceptInvitation, invite, listInvitations, revokeInvitation } from "#core/users/invitations";
import { UserLookups } from "#core/users/lookups";
import { signUp } from "#core/users/sign-up";
import { addUser, changeRole, currentUser, deactivate, getUser, listUsers, updateProfile } from "#core/users/team";

export * from "#core/users/schemas";
export { ListUsersSchema } from "#core/users/team";
export { UpdateProfileSchema } from "#core/users/profile-schema";
export { ListInvitationsSchema } from "#core/users/invitations";
export { SignUpSchema, SignedUpSchema } from "#core/users/sign-up";

/**
 * The people of an organization: stored users with a role and a status, invitations by e-mail, and what
 * authentication and sign-in ask of them. One e-mail belongs to at most one user of one organization
 * (docs/decisions.md "One organization per e-mail"): sign-in finds the organization from the address alone.
 */
export const Users = {
  ...UserLookups,
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
