import * as v from "valibot";
import { routedBy } from "#core/http/operation";
import { userRoutes } from "#stacks/definitions";
import { pageSchema } from "#core/shared/paging";
import {
  AcceptInvitationSchema,
  ChangeRoleSchema,
  InvitationRequestSchema,
  InvitationSchema,
  ListInvitationsSchema,
  ListUsersSchema,
  SignedUpSchema,
  SignUpSchema,
  UpdateProfileSchema,
  UserSchema,
} from "#core/users/index";

const defineOperation = routedBy(userRoutes);

const userId = v.object({ id: v.pipe(v.string(), v.minLength(1), v.maxLength(64)) });
const invitationId = userId;

export const getCurrentUser = /* @__PURE__ */ defineOperation({
  operationId: "getCurrentUser",
  summary: "The signed-in user's profile (`/me`: the current user)",
  description: "Needs a user's access token: an API key is no user (403).",
  tag: "Users",
  auth: "bearer",
  success: { status: 200, description: "The user", schema: UserSchema },
  problems: [401, 403, 429],
});

export const updateCurrentUser = /* @__PURE__ */ defineOperation({
  operationId: "updateCurrentUser",
  summary: "Change the signed-in user's name, phone, time zone or working hours",
  description:
    "Absent fields are kept; `phone` and `timeZone` take null to clear them. The change is in the audit log.",
  tag: "Users",
  auth: "bearer",
  body: UpdateProfileSchema,
  success: { status: 200, description: "The user", schema: UserSchema },
  problems: [400, 401, 403, 413, 415, 429],
  example: {
    name: "Dana Reyes",
    phone: "+12125550100",
    timeZone: "America/Chicago",
    workingHours: [{ day: "Mon", start: "09:00", end: "17:00" }],
  },
});

export const listUsers = /* @__PURE__ */ defineOperation({
  operationId: "listUsers",
  summary: "List the organization's users (paging query in the body)",
  description: 'Filter by `id` to narrow the list to one user ("mine").',
  tag: "Users",
  auth: "bearer",
  permission: "users:read",
  body: ListUsersSchema,
  success: { status: 200, description: "A page of users", schema: /* @__PURE__ */ pageSchema(UserSchema) },
  problems: [400, 401, 403, 413, 415, 429],
  example: {},
});

export const changeUserRole = /* @__PURE__ */ defineOperation({
  operationId: "changeUserRole",
  summary: "Change a user's role",
  description:
    "Only an owner grants or takes away the owner role; the organization always keeps an active owner (409). The new role applies to the user's next request.",
  tag: "Users",
  auth: "bearer",
  permission: "users:write",
  params: userId,
  body: ChangeRoleSchema,
  success: { status: 200, description: "The user", schema: UserSchema },
  problems: [400, 401, 403, 404, 409, 413, 415, 429],
  example: { role: "admin" },
});

export const deactivateUser = /* @__PURE__ */ defineOperation({
  operationId: "deactivateUser",
  summary: "Deactivate a user: their tokens are refused within seconds and the API keys they created are revoked",
  tag: "Users",
  auth: "bearer",
  permission: "users:write",
  params: userId,
  success: { status: 200, description: "The user, Deactivated", schema: UserSchema },
  problems: [401, 403, 404, 409, 429],
});

export const createInvitation = /* @__PURE__ */ defineOperation({
  operationId: "createInvitation",
  summary: "Invite someone by e-mail",
  description:
    "E-mails a single-use link that expires after `expiresInHours`. The token is stored only hashed and never answered. An address that already belongs to a user is a 409 (one organization per e-mail). When the e-mail cannot be sent (502), nothing is stored.",
  tag: "Users",
  auth: "bearer",
  permission: "users:write",
  body: InvitationRequestSchema,
  success: { status: 201, description: "The invitation (without its token)", schema: InvitationSchema },
  problems: [400, 401, 403, 409, 413, 415, 429, 502],
  example: { email: "dana@example.com", role: "agent" },
});

export const listInvitations = /* @__PURE__ */ defineOperation({
  operationId: "listInvitations",
  summary: "List the organization's invitations (paging query in the body)",
  tag: "Users",
  auth: "bearer",
  permission: "users:read",
  body: ListInvitationsSchema,
  success: { status: 200, description: "A page of invitations", schema: /* @__PURE__ */ pageSchema(InvitationSchema) },
  problems: [400, 401, 403, 413, 415, 429],
  example: {},
});

export const revokeInvitation = /* @__PURE__ */ defineOperation({
  operationId: "revokeInvitation",
  summary: "Revoke a pending invitation: its link stops working at once",
  description:
    "Accepting a revoked invitation is a 409. Only an owner revokes an invitation to the owner role (403); an accepted, expired or already revoked invitation is a 409; another organization's is a 404.",
  tag: "Users",
  auth: "bearer",
  permission: "users:write",
  params: invitationId,
  success: { status: 204, description: "Revoked; no content" },
  problems: [401, 403, 404, 409, 429],
});

export const acceptInvitation = /* @__PURE__ */ defineOperation({
  operationId: "acceptInvitation",
  summary: "Accept an invitation as the signed-in person",
  description:
    "Called with a user access token, which may belong to no organization yet; its e-mail must be the invited one (403). " +
    "Unknown token: 404; used, expired or revoked: 409. Creates the user; sign in again for a token of the organization.",
  tag: "Users",
  auth: "identity",
  body: AcceptInvitationSchema,
  success: { status: 201, description: "The new user", schema: UserSchema },
  problems: [400, 401, 403, 404, 409, 413, 415, 429],
  example: { token: "inv_01JABCDEFGHJKMNPQRSTVWXYZ0_q0Jx5sY2mVb8Hk3LrT6wUe9NaD4fGz7Pc1XiOy" },
});

export const signUp = /* @__PURE__ */ defineOperation({
  operationId: "signUp",
  summary: "Create an organization owned by the signed-in person (self-service sign-up)",
  description:
    "Only where the stage allows it (`SELF_SERVICE_SIGN_UP=true`, off by default: 403 otherwise, and the operator CLI creates organizations). " +
    "Called with a user access token of no organization yet; its e-mail becomes the owner (409 when it already has a user). Sign in again for a token of the new organization.",
  tag: "Users",
  auth: "identity",
  body: SignUpSchema,
  success: { status: 201, description: "The organization and its owner", schema: SignedUpSchema },
  problems: [400, 401, 403, 409, 413, 415, 429],
  example: { organizationName: "Acme Roofing", timeZone: "America/Chicago" },
});
