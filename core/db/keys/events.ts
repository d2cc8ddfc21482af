import { org, type Key } from "#core/db/keys/shared";

/** Keys of the items core/events owns (docs/data-model.md). */
export const eventsKeys = {
  /**
   * Event records (spec 2.5). The item lives under the organization, newest first by
   * its ULID; gsi1 lists one lead's events in order.
   */
  event: (organizationId: string, eventId: string): Key => ({ pk: org(organizationId), sk: `EVENT#${eventId}` }),
  eventPrefix: (organizationId: string) => ({ pk: org(organizationId), skPrefix: "EVENT#" }),
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
