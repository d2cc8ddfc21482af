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
