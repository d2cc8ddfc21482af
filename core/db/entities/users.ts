import { defineEntity } from "#core/db/entity";
import { ownedEntity } from "#core/db/entities/owned";
import { org, type Key } from "#core/db/keys/shared";

/** Keys of the items core/users owns (docs/data-model.md). */
export const usersKeys = {
  user: (organizationId: string, userId: string): Key => ({ pk: org(organizationId), sk: `USER#${userId}` }),
  userPrefix: (organizationId: string) => ({ pk: org(organizationId), skPrefix: "USER#" }),
  /**
   * The one user an e-mail signs in as (docs/decisions.md "One organization per e-mail"). Not tenant data: sign-in
   * knows only the e-mail, so this key cannot begin with an organization; it holds nothing but the pointer.
   */
  userEmail: (email: string): Key => ({ pk: `USEREMAIL#${email}`, sk: "USER" }),
  /** The token names its invitation (`inv_<org>_<id>_<secret>`); the item holds only the token's hash. */
  invitation: (organizationId: string, invitationId: string): Key => ({
    pk: org(organizationId),
    sk: `INVITATION#${invitationId}`,
  }),
  invitationPrefix: (organizationId: string) => ({ pk: org(organizationId), skPrefix: "INVITATION#" }),
};

/** The User entity (docs/data-model.md): one item per member under the organization. No secondary index. */
export const UserEntity = ownedEntity("User", usersKeys.user);

/** The one user an e-mail signs in as: a pointer, not tenant data (sign-in knows only the e-mail). */
type StoredUserEmail = { email: string; organizationId: string; userId: string };

export const UserEmailEntity = defineEntity({
  name: "UserEmail",
  attributes: [],
  key: ({ email }: { email: string }) => usersKeys.userEmail(email),
  identity: ({ email }: StoredUserEmail) => ({ email }),
  indexes: {},
});

/** The Invitation entity: one item per invitation under the organization, holding its token's hash only. */
export const InvitationEntity = ownedEntity("Invitation", usersKeys.invitation);
