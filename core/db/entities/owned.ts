import { defineEntity } from "#core/db/entity";
import type { AccessPattern } from "#core/db/indexes";
import { org, type Key } from "#core/db/keys/shared";

/** What identifies an item an organization owns by id: the organization and the id (the rest of the record beside). */
export type OwnedRecord = { organizationId: string; id: string } & Record<string, unknown>;

/**
 * An entity of one item per id under its organization and no secondary index (a source, an automation, a user): read
 * by key, and, when `prefix` (its sort-key prefix) is given, as a collection: the organization's items of the kind
 * in id order (ULIDs: creation order).
 */
/* @__NO_SIDE_EFFECTS__ */
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

/**
 * An entity of one item per id in a partition of its own (issue 27: an item written on the organization's hot path,
 * a number's pacing state or an automation's last run, takes no write of the organization's partition), listed by
 * creation from `index` under `ORG#<org>#<listing>` (`prefix` and the id; ULIDs: creation order). The entry is
 * written when the item is created and removed with it, never moved by an update (the id is its only composite),
 * and an organization holds few such items, so the listing is one partition, not sharded.
 */
/* @__NO_SIDE_EFFECTS__ */
export function listedOwnedEntity(
  name: string,
  key: (organizationId: string, id: string) => Key,
  listing: { index: AccessPattern; partition: string; prefix: string },
) {
  return defineEntity({
    name,
    attributes: [],
    key: ({ organizationId, id }: { organizationId: string; id: string }) => key(organizationId, id),
    identity: ({ organizationId, id }: OwnedRecord) => ({ organizationId, id }),
    indexes: {
      byCreation: {
        index: listing.index,
        pk: (record: OwnedRecord) => `${org(record.organizationId)}#${listing.partition}`,
        sk: (record: OwnedRecord) => `${listing.prefix}${record.id ?? ""}`,
        composites: ["id"],
      },
    },
  });
}
