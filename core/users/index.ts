import type { Role } from "#core/auth/actor";
import { getItem } from "#core/db/items";

/**
 * PLACEHOLDER until the Users aggregate (branch `team`) is merged: that module replaces this file whole and
 * keeps `Users.forSignIn`. Here a person who can sign in is one item written by the local provisioning and
 * the tests (local/provision.ts `registerSignInUser`).
 */
export const Users = {
  /** The active user with this e-mail, for the identity provider's success callback. */
  async forSignIn(email: string): Promise<{ userId: string; organizationId: string; role: Role; name: string; email: string } | undefined> {
    const item = await getItem({ pk: `SIGNIN#${email.toLowerCase()}`, sk: "USER" });
    if (!item) return undefined;
    return { userId: String(item.userId), organizationId: String(item.organizationId), role: item.role as Role, name: String(item.name), email: String(item.email) };
  },
};
