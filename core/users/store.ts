import { UserEmailEntity, UserEntity } from "#core/db/entities/users";
import { keys } from "#core/db/keys";
import { getItem } from "#core/db/items";
import { queryUpTo } from "#core/db/query";
import { prefixQuery } from "#core/db/list";
import type { TransactItem } from "#core/db/transact";
import { where, type Condition } from "#core/db/expression";
import { roleNamed } from "#core/auth/actor";
import { defaultAlerts, type User } from "#core/users/schemas";

/** The most users one organization holds (a team, not a customer list): lists and owner counts read them all. */
export const maxUsersPerOrganization = 500;

/** The put of a user, unless `condition` fails. */
export function userPut(organizationId: string, user: User, condition?: Condition) {
  return UserEntity.put({ organizationId, ...user }, condition ? { condition } : {});
}

/** The writes that create a user: the user and the e-mail's pointer (refused when the e-mail already has a user). */
export function newUserWrites(organizationId: string, user: User): TransactItem[] {
  return [
    { Put: userPut(organizationId, user, where.new()) },
    { Put: UserEmailEntity.create({ email: user.email, organizationId, userId: user.id }) },
  ];
}

export async function readUser(organizationId: string, userId: string): Promise<User | undefined> {
  const item = await getItem(keys.user(organizationId, userId), { consistent: true });
  return item ? toUser(item) : undefined;
}

/** The user an e-mail belongs to, wherever it is. */
export async function userOfEmail(email: string): Promise<{ organizationId: string; userId: string } | undefined> {
  const item = await getItem(keys.userEmail(email));
  return item ? { organizationId: item.organizationId as string, userId: item.userId as string } : undefined;
}

export async function allUsers(organizationId: string): Promise<User[]> {
  const { items } = await queryUpTo(prefixQuery(keys.userPrefix(organizationId)), maxUsersPerOrganization);
  return items.map(toUser);
}

export function userPrefixQuery(organizationId: string) {
  return prefixQuery(keys.userPrefix(organizationId));
}

export { forgetStanding, standingOf, standingMs } from "#core/users/standing";

export function toUser(item: Record<string, unknown>): User {
  return {
    id: item.id as string,
    email: item.email as string,
    name: item.name as string,
    phone: (item.phone as string | null) ?? null,
    timeZone: (item.timeZone as string | null) ?? null,
    workingHours: (item.workingHours as User["workingHours"]) ?? [],
    alerts: (item.alerts as User["alerts"] | undefined) ?? defaultAlerts,
    role: roleNamed(item.role) ?? "agent",
    status: item.status as User["status"],
    createdAt: item.createdAt as string,
    modifiedAt: (item.modifiedAt as string | null) ?? null,
  };
}
