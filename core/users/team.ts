import { where } from "#core/db/expression";
import { type Actor, type Role } from "#core/auth/actor";
import * as Audit from "#core/audit/index";
import { listPage, listQuerySchema, type ListResource } from "#core/db/list";
import { isConditionFailed } from "#core/db/items";
import { transact, TransactionConditionFailed } from "#core/db/transact";
import { ConflictError, ForbiddenError, NotFoundError } from "#core/errors";
import * as ApiKeys from "#core/organizations/api-keys";
import { newId, nowIso } from "#core/shared/ids";
import type { Page, PagingQuery } from "#core/shared/paging";
import { defaultAlerts, type User } from "#core/users/schemas";
import type { UpdateProfile } from "#core/users/profile-schema";
import { allUsers, forgetStanding, newUserWrites, readUser, toUser, userPut, userPrefixQuery } from "#core/users/store";

const listResource: ListResource<User> = {
  name: "users",
  fields: {
    name: { get: (u) => u.name, kind: "string", sort: true, search: true },
    email: { get: (u) => u.email, kind: "string", sort: true, filter: true, search: true },
    role: { get: (u) => u.role, kind: "string", filter: true },
    status: { get: (u) => u.status, kind: "string", filter: true },
    // "mine" for the routing issue: a list narrowed to one user is a filter on the id.
    id: { get: (u) => u.id, kind: "string", filter: true },
    createdAt: { get: (u) => u.createdAt, kind: "date", sort: true, range: true },
  },
  defaultOrder: [{ field: "createdAt", direction: "asc" }],
  idOf: (u) => u.id,
  fromItem: toUser,
  candidates: (organizationId) => userPrefixQuery(organizationId),
};

export const ListUsersSchema = listQuerySchema(listResource);

/** A new user of an organization, active at once (operator CLI, sign-up, an accepted invitation, tests). */
export function newUser(input: { email: string; name?: string; role: Role }): User {
  return {
    id: newId(),
    email: input.email.trim().toLowerCase(),
    name: input.name?.trim() || input.email.split("@")[0]!,
    phone: null,
    timeZone: null,
    workingHours: [],
    alerts: defaultAlerts,
    role: input.role,
    status: "Active",
    createdAt: nowIso(),
    modifiedAt: null,
  };
}

/** Stores a new user; a 409 when the e-mail already belongs to a user (of any organization: one per e-mail). */
export async function addUser(
  organizationId: string,
  input: { email: string; name?: string; role: Role },
  actor?: Actor,
): Promise<User> {
  const user = newUser(input);
  const audit = actor
    ? [Audit.entry(actor, { action: "user.added", resourceType: "User", resourceId: user.id, after: auditView(user) })]
    : [];
  try {
    await transact([...newUserWrites(organizationId, user), ...audit]);
  } catch (error) {
    if (error instanceof TransactionConditionFailed)
      throw new ConflictError(`${user.email} already belongs to a user.`);
    throw error;
  }
  return user;
}

/** The caller as a user (`/users/me`): an API key is no user. */
export async function currentUser(actor: Actor): Promise<User> {
  if (actor.kind !== "user" || !actor.userId)
    throw new ForbiddenError("/users/me needs a user's access token, not an API key.");
  const user = await readUser(actor.organizationId, actor.userId);
  if (!user) throw new NotFoundError("User", actor.userId);
  return user;
}

export async function updateProfile(actor: Actor, input: UpdateProfile): Promise<User> {
  const user = await currentUser(actor);
  const fields = Object.fromEntries(Object.entries(input).filter(([, value]) => value !== undefined)) as Partial<User>;
  const updated: User = { ...user, ...fields, modifiedAt: nowIso() };
  await transact([
    { Put: userPut(actor.organizationId, updated, where.stored()) },
    Audit.entry(actor, {
      action: "user.profileUpdated",
      resourceType: "User",
      resourceId: user.id,
      before: auditView(user),
      after: auditView(updated),
    }),
  ]);
  forgetStanding(actor.organizationId, user.id); // the standing carries the working hours routing reads
  return updated;
}

export function listUsers(actor: Actor, query: PagingQuery): Promise<Page<User>> {
  return listPage(listResource, actor.organizationId, query);
}

export async function getUser(actor: Actor, userId: string): Promise<User> {
  const user = await readUser(actor.organizationId, userId);
  if (!user) throw new NotFoundError("User", userId);
  return user;
}

/**
 * Changes a user's role. Only an owner grants or takes away the owner role, and the organization always keeps an
 * active owner. Takes effect on the user's next request (authentication reads the stored role, not the token's).
 */
export async function changeRole(actor: Actor, userId: string, role: Role): Promise<User> {
  const user = await getUser(actor, userId);
  if ((role === "owner" || user.role === "owner") && actor.role !== "owner") {
    throw new ForbiddenError("Only an owner can make someone an owner or change an owner's role.");
  }
  if (user.role === role) return user;
  if (user.role === "owner") await keepAnOwner(actor.organizationId, userId);
  return writeChange(actor, user, { role }, "user.roleChanged");
}

/** Deactivates a user: their tokens are refused within seconds and the API keys they created are revoked. */
export async function deactivate(actor: Actor, userId: string): Promise<User> {
  const user = await getUser(actor, userId);
  if (user.role === "owner" && actor.role !== "owner")
    throw new ForbiddenError("Only an owner can deactivate an owner.");
  if (user.status === "Deactivated") return user;
  if (user.role === "owner") await keepAnOwner(actor.organizationId, userId);
  const deactivated = await writeChange(actor, user, { status: "Deactivated" }, "user.deactivated");
  await ApiKeys.revokeCreatedBy(actor, userId);
  return deactivated;
}

async function writeChange(actor: Actor, user: User, change: Partial<User>, action: string): Promise<User> {
  const updated: User = { ...user, ...change, modifiedAt: nowIso() };
  try {
    await transact([
      {
        // Written over the state just read: a concurrent change is retried by the caller, never lost.
        Put: userPut(
          actor.organizationId,
          updated,
          where.all(where.stored(), where.equals("role", user.role), where.equals("status", user.status)),
        ),
      },
      Audit.entry(actor, {
        action,
        resourceType: "User",
        resourceId: user.id,
        before: auditView(user),
        after: auditView(updated),
      }),
    ]);
  } catch (error) {
    if (error instanceof TransactionConditionFailed || isConditionFailed(error))
      throw new ConflictError(`User ${user.id} changed meanwhile; try again.`);
    throw error;
  }
  forgetStanding(actor.organizationId, user.id);
  return updated;
}

async function keepAnOwner(organizationId: string, leaving: string): Promise<void> {
  const others = (await allUsers(organizationId)).filter(
    (u) => u.role === "owner" && u.status === "Active" && u.id !== leaving,
  );
  if (others.length === 0) throw new ConflictError("The organization must keep an active owner.");
}

export function auditView(user: User) {
  return {
    email: user.email,
    name: user.name,
    phone: user.phone,
    timeZone: user.timeZone,
    workingHours: user.workingHours,
    role: user.role,
    status: user.status,
  };
}
