import { defineEntity } from "#core/db/entity";
import { eventsKeys } from "#core/db/keys/events";
import { org } from "#core/db/keys/shared";

/** A stored event: its organization, id (a ULID of its createdAt), type, lead and the rest of the record. */
export type StoredEvent = { organizationId: string; id: string; eventType: string; leadId?: string | null } & Record<
  string,
  unknown
>;

/**
 * The Event entity (docs/data-model.md): one item per event under its organization in creation order, an entry
 * per lead (when it has one) and per type. Every put derives these keys; events are never updated.
 */
export const EventEntity = defineEntity({
  name: "Event",
  attributes: [],
  key: ({ organizationId, id }: { organizationId: string; id: string }) => eventsKeys.event(organizationId, id),
  identity: (event: StoredEvent) => ({ organizationId: event.organizationId, id: event.id }),
  /** The organization's events, oldest first (ULID ids). */
  collection: {
    name: "byCreation",
    pk: (event: StoredEvent) => org(event.organizationId),
    sk: (event: StoredEvent) => `EVENT#${event.id ?? ""}`,
  },
  indexes: {
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
      pk: (event: StoredEvent) => eventsKeys.eventsByType(event.organizationId, String(event.eventType)).gsi7pk,
      sk: (event: StoredEvent) =>
        eventsKeys.eventsByType(event.organizationId, String(event.eventType), event.id).gsi7sk,
      composites: ["eventType"],
    },
  },
});
