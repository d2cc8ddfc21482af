import { defineEntity } from "#core/db/entity";
import { eventsKeys } from "#core/db/keys/events";
import { org } from "#core/db/keys/shared";

/** A stored event: its organization, id (a ULID of its createdAt), type, lead and the rest of the record. */
export type StoredEvent = { organizationId: string; id: string; eventType: string; leadId?: string | null } & Record<
  string,
  unknown
>;

/**
 * Shards of the organization's event listings (issue 27): about eight events per lead at 167 leads/s is ~1,300
 * entries/s, ~330 write units/s per shard with eight (docs/scale.md).
 */
export const eventListShards = 8;
const sharded = { count: eventListShards, by: (event: StoredEvent) => event.id };

/**
 * The Event entity (docs/data-model.md): one item per event in a partition of its own (`ORG#o#EVENT#<id>`), the
 * organization's events in creation order and per type from write-sharded indexes, one lead's from gsi1. Every put
 * derives these keys; events are never updated.
 */
export const EventEntity = defineEntity({
  name: "Event",
  attributes: [],
  key: ({ organizationId, id }: { organizationId: string; id: string }) => eventsKeys.event(organizationId, id),
  identity: (event: StoredEvent) => ({ organizationId: event.organizationId, id: event.id }),
  indexes: {
    /** The organization's events, oldest first (ULID ids). */
    byCreation: {
      index: "eventsByCreation",
      pk: (event: StoredEvent, shard: number) => `${org(event.organizationId)}#EVENTS#${shard}`,
      sk: (event: StoredEvent) => `EVENT#${event.id ?? ""}`,
      composites: [],
      shards: sharded,
    },
    /** One lead's events, in creation order. */
    byLead: {
      index: "eventsByLead",
      pk: (event: StoredEvent) => eventsKeys.eventsByLead(event.organizationId, String(event.leadId)).gsi1pk,
      sk: (event: StoredEvent) => eventsKeys.eventsByLead(event.organizationId, String(event.leadId), event.id).gsi1sk,
      composites: ["leadId"],
      when: (event: StoredEvent) => Boolean(event.leadId),
    },
    /** One type's events (the type lower-cased: list filters compare case-insensitively), in creation order. */
    byType: {
      index: "eventsByType",
      pk: (event: StoredEvent, shard: number) =>
        `${eventsKeys.eventsByType(event.organizationId, String(event.eventType)).gsi7pk}#${shard}`,
      sk: (event: StoredEvent) =>
        eventsKeys.eventsByType(event.organizationId, String(event.eventType), event.id).gsi7sk,
      composites: ["eventType"],
      shards: sharded,
    },
  },
});
