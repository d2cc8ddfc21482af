/**
 * The people of an organization: stored users with a role and a status, invitations by e-mail, and what
 * authentication and sign-in ask of them. One e-mail belongs to at most one user of one organization
 * (docs/decisions.md "One organization per e-mail"): sign-in finds the organization from the address alone.
 * Imported as a namespace (`import * as Users from "#core/users/index"`): a Lambda bundles only the operations it
 * calls.
 */

export * from "#core/users/schemas";
export { ListUsersSchema } from "#core/users/team";
export { UpdateProfileSchema } from "#core/users/profile-schema";
export { ListInvitationsSchema } from "#core/users/invitations";
export { SignUpSchema, SignedUpSchema } from "#core/users/sign-up";

export { forSignIn, isActive, standing, activeOwners } from "#core/users/lookups";
export { acceptInvitation, invite, listInvitations, revokeInvitation } from "#core/users/invitations";
export { signUp } from "#core/users/sign-up";
export {
  addUser as add,
  changeRole,
  currentUser as me,
  deactivate,
  getUser as get,
  listUsers as list,
  updateProfile as updateMe,
} from "#core/users/team";
