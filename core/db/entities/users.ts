import { defineEntity } from "#core/db/entity";
import { ownedEntity } from "#core/db/entities/owned";
import { usersKeys } from "#core/db/keys/users";

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
