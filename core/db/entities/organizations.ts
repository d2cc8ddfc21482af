import { defineEntity } from "#core/db/entity";
import { org, type Key } from "#core/db/keys/shared";

/** Keys of the items core/organizations owns (docs/data-model.md). */
export const organizationsKeys = {
  organization: (organizationId: string): Key => ({ pk: org(organizationId), sk: "PROFILE" }),
  /** The operator-only index of every organization by creation (admin CLI `list-orgs`; not tenant data). */
  organizationIndex: {
    pk: "ORGANIZATIONS",
    sk: (createdAt: string, organizationId: string) => `${createdAt}#${organizationId}`,
  },

  /** API keys embed their organization (`sk_<org>_<secret>`), so lookup is one GetItem. */
  apiKey: (organizationId: string, keyHash: string): Key => ({ pk: org(organizationId), sk: `APIKEY#${keyHash}` }),
  apiKeyPrefix: (organizationId: string) => ({ pk: org(organizationId), skPrefix: "APIKEY#" }),
};

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

/** An API key's item: `sk_<org>_<secret>` names its organization, so its key (the secret's hash) is one GetItem. */
type ApiKeyIdentity = { organizationId: string; keyHash: string };

/** A key's item as read: its hash is held only in its sort key (`APIKEY#<hash>`). */
type StoredApiKey = { organizationId: string; sk: string } & Record<string, unknown>;

const apiKeySortPrefix = organizationsKeys.apiKeyPrefix("").skPrefix;

/**
 * The ApiKey entity (docs/data-model.md): one item per key under its organization, holding the hash of its secret
 * (as its sort key), its scopes and its expiry (epoch seconds, DynamoDB TTL). No secondary index: an organization's
 * tens of keys are read by key prefix.
 */
export const ApiKeyEntity = defineEntity({
  name: "ApiKey",
  attributes: [],
  key: ({ organizationId, keyHash }: ApiKeyIdentity) => organizationsKeys.apiKey(organizationId, keyHash),
  identity: ({ organizationId, sk }: StoredApiKey) => ({
    organizationId,
    keyHash: sk.slice(apiKeySortPrefix.length),
  }),
  indexes: {},
});
