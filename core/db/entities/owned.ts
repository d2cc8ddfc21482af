import { defineEntity } from "#core/db/entity";
import { org, type Key } from "#core/db/keys/shared";

/** What identifies an item an organization owns by id: the organization and the id (the rest of the record beside). */
export type OwnedRecord = { organizationId: string; id: string } & Record<string, unknown>;

/**
 * An entity of one item per id under its organization and no secondary index (a source, an automation, a user): read
 * by key, and, when `prefix` (its sort-key prefix) is given, as a collection: the organization's items of the kind
 * in id order (ULIDs: creation order).
 */
export function ownedEntity(name: string, key: (organizationId: string, id: string) => Key, prefix?: string) {
  return defineEntity({
    name,
    attributes: [],
    key: ({ organizationId, id }: { organizationId: string; id: string }) => key(organizationId, id),
    identity: ({ organizationId, id }: OwnedRecord) => ({ organizationId, id }),
    ...(prefix
      ? {
          collection: {
            name: "byCreation",
            pk: (record: OwnedRecord) => org(record.organizationId),
            sk: (record: OwnedRecord) => `${prefix}${record.id ?? ""}`,
          },
        }
      : {}),
    indexes: {},
  });
}
