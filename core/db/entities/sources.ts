import { ownedEntity } from "#core/db/entities/owned";
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

/**
 * The Source entity (docs/data-model.md): one item per lead source under its organization, in the order of its
 * ULID id, holding the hash of its intake key (and the previous one's during a rotation). No secondary index.
 */
export const SourceEntity = ownedEntity("Source", sourcesKeys.source, "SOURCE#");
