import { defineEntity } from "#core/db/entity";
import { organizationsKeys } from "#core/db/keys/organizations";

type StoredOrganization = { id: string; createdAt: string } & Record<string, unknown>;

/**
 * The Organization entity (docs/data-model.md): its profile, one item at the top of its partition, and the
 * operator's index of every organization by creation (a put derives it).
 */
export const OrganizationEntity = defineEntity({
  name: "Organization",
  attributes: [],
  key: ({ organizationId }: { organizationId: string }) => organizationsKeys.organization(organizationId),
  identity: ({ id }: StoredOrganization) => ({ organizationId: id }),
  indexes: {
    byCreation: {
      index: "organizationsByCreation",
      pk: () => organizationsKeys.organizationIndex.pk,
      sk: (organization: StoredOrganization) =>
        organization.createdAt
          ? organizationsKeys.organizationIndex.sk(organization.createdAt, organization.id ?? "")
          : "",
      composites: ["createdAt", "id"],
    },
  },
});
