import { entities, keys } from "#core/db/keys";
import { getItem, table } from "#core/db/items";
import { queryUpTo } from "#core/db/query";
import { prefixQuery } from "#core/db/list";
import type { TransactItem } from "#core/db/transact";
import { roleNamed } from "#core/auth/actor";
import type { User } from "#core/users/schemas";

/** The most users one organization holds (a team, not a customer list): lists and owner counts read them all. */
export const maxUsersPerOrganization = 500;

export function userItem(organizationId: string, user: User) {
  return { ...keys.user(organizationId, user.id), entity: entities.user, organizationId, ...user };
}

/** The writes that create a user: the user and the e-mail's pointer (refused when the e-mail already has a user). */
export function newUserWrites(organizationId: string, user: User): TransactItem[] {
  return [
    { Put: { Item: userItem(organizationId, user), ConditionExpression: "attribute_not_exists(pk)" } },
    {
      Put: {
        Item: { ...keys.userEmail(user.email), entity: entities.userEmail, organizationId, userId: user.id },
        ConditionExpression: "attribute_not_exists(pk)",
      },
    },
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

export async function updateUser(organizationId: string, userId: string, fields: Partial<User>): Promise<void> {
  const names = Object.keys(fields);
  await table.update({
    Key: keys.user(organizationId, userId),
    UpdateExpression: `SET ${names.map((name, index) => `#f${index} = :v${index}`).join(", ")}`,
    ConditionExpression: "attribute_exists(pk)",
    ExpressionAttributeNames: Object.fromEntries(names.map((name, index) => [`#f${index}`, name])),
    ExpressionAttributeValues: Object.fromEntries(
      names.map((name, index) => [`:v${index}`, fields[name as keyof User]]),
    ),
  });
}

export function toUser(item: Record<string, unknown>): User {
  return {
    id: item.id as string,
    email: item.email as string,
    name: item.name as string,
    phone: (item.phone as string | null) ?? null,
    timeZone: (item.timeZone as string | null) ?? null,
    workingHours: (item.workingHours as User["workingHours"]) ?? [],
    role: roleNamed(item.role) ?? "agent",
    status: item.status as User["status"],
    createdAt: item.createdAt as string,
    modifiedAt: (item.modifiedAt as string | null) ?? null,
  };
}
