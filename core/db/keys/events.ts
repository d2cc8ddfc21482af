import { org, type Key } from "#core/db/keys/shared";

/** Keys of the items core/events owns (docs/data-model.md). */
export const eventsKeys = {
  /**
   * Event records (spec 2.5), each in a partition of its own (issue 27); the organization lists them from the
   * write-sharded `byCreation` index, one lead's from gsi1, one type's from gsi7 (core/db/entities/events.ts).
   */
  event: (organizationId: string, eventId: string): Key => ({
    pk: `${org(organizationId)}#EVENT#${eventId}`,
    sk: `EVENT#${eventId}`,
  }),
  eventsByLead: (organizationId: string, leadId: string, eventId = "") => ({
    gsi1pk: `${org(organizationId)}#LEAD#${leadId}#EVENTS`,
    gsi1sk: `EVENT#${eventId}`,
  }),
  /** gsi7: the events of one type (lower-cased: list filters compare case-insensitively), in createdAt order (ULID ids). */
  eventsByType: (organizationId: string, eventType: string, eventId = "") => ({
    gsi7pk: `${org(organizationId)}#EVENTS#TYPE#${eventType.toLowerCase()}`,
    gsi7sk: `EVENT#${eventId}`,
  }),
};
