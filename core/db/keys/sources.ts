import { org, type Key } from "#core/db/keys/shared";

/** Keys of the items core/sources owns (docs/data-model.md). */
export const sourcesKeys = {
  /**
   * Lead sources. The item holds the hash of the source key (`lk_<org>_<secret>`), so
   * `sourceId` + key resolve in one GetItem and a rotation replaces the hash atomically.
   */
  source: (organizationId: string, sourceId: string): Key => ({ pk: org(organizationId), sk: `SOURCE#${sourceId}` }),
  sourcePrefix: (organizationId: string) => ({ pk: org(organizationId), skPrefix: "SOURCE#" }),
};
