import { defineEntity } from "#core/db/entity";
import { sourcesKeys } from "#core/db/keys/sources";
import { org } from "#core/db/keys/shared";

/** What identifies a source: its organization and id (the rest of the stored source beside). */
type StoredSource = { organizationId: string; id: string } & Record<string, unknown>;

/**
 * The Source entity (docs/data-model.md): one item per lead source under its organization, in the order of its
 * ULID id, holding the hash of its intake key (and the previous one's during a rotation). No secondary index.
 */
export const SourceEntity = defineEntity({
  name: "Source",
  attributes: [],
  key: ({ organizationId, id }: { organizationId: string; id: string }) => sourcesKeys.source(organizationId, id),
  identity: ({ organizationId, id }: StoredSource) => ({ organizationId, id }),
  /** The organization's sources, oldest first (ULID ids). */
  collection: {
    name: "byCreation",
    pk: (source: StoredSource) => org(source.organizationId),
    sk: (source: StoredSource) => `SOURCE#${source.id ?? ""}`,
  },
  indexes: {},
});
