import { ownedEntity } from "#core/db/entities/owned";
import { sourcesKeys } from "#core/db/keys/sources";

/**
 * The Source entity (docs/data-model.md): one item per lead source under its organization, in the order of its
 * ULID id, holding the hash of its intake key (and the previous one's during a rotation). No secondary index.
 */
export const SourceEntity = ownedEntity("Source", sourcesKeys.source, "SOURCE#");
