import { org, type Key } from "#core/db/keys/shared";

/** Keys of the items core/organizations owns (docs/data-model.md). */
export const organizationsKeys = {
  organization: (organizationId: string): Key => ({ pk: org(organizationId), sk: "PROFILE" }),
  /** Operator-only index of organizations (admin CLI `list-orgs`), on gsi1. */
  organizationIndex: (createdAt: string, organizationId: string) => ({
    gsi1pk: "ORGANIZATIONS",
    gsi1sk: `${createdAt}#${organizationId}`,
  }),

  /** API keys embed their organization (`sk_<org>_<secret>`), so lookup is one GetItem. */
  apiKey: (organizationId: string, keyHash: string): Key => ({ pk: org(organizationId), sk: `APIKEY#${keyHash}` }),
  apiKeyPrefix: (organizationId: string) => ({ pk: org(organizationId), skPrefix: "APIKEY#" }),
};
