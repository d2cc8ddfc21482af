import { defineEntity } from "#core/db/entity";
import { routingKeys } from "#core/db/keys/routing";

type Member = { organizationId: string; userId: string };

/**
 * The items core/routing owns (docs/routing.md, docs/data-model.md): the organization's settings, and per rule or
 * member the small counters and marks that keep concurrent routing exact. Each is one item under the organization,
 * read and written by key; none has a secondary index.
 */

/** The organization's routing rules and lead-visibility settings (the item does not store its organization). */
export const RoutingSettingsEntity = defineEntity({
  name: "RoutingSettings",
  attributes: [],
  key: ({ organizationId }: { organizationId: string }) => routingKeys.routingSettings(organizationId),
  identity: ({ organizationId }: { organizationId: string }) => ({ organizationId }),
  indexes: {},
});

/** A rule's round-robin position: `seq`, the tickets taken, moved only by an atomic increment. */
export const RoutingCounterEntity = defineEntity({
  name: "RoutingCounter",
  attributes: [],
  key: ({ organizationId, ruleId }: { organizationId: string; ruleId: string }) =>
    routingKeys.routingCounter(organizationId, ruleId),
  identity: ({ organizationId, ruleId }: { organizationId: string; ruleId: string }) => ({ organizationId, ruleId }),
  indexes: {},
});

/** The leads routing gave a member on one day (`assigned`), for the daily cap; it expires after. */
export const RoutingDailyCountEntity = defineEntity({
  name: "RoutingDailyCount",
  attributes: [],
  key: ({ organizationId, day, userId }: Member & { day: string }) =>
    routingKeys.routingDailyCount(organizationId, day, userId),
  identity: ({ organizationId, day, userId }: Member & { day: string }) => ({ organizationId, day, userId }),
  indexes: {},
});

/** The same for one clock hour, for the hourly cap. */
export const RoutingHourlyCountEntity = defineEntity({
  name: "RoutingHourlyCount",
  attributes: [],
  key: ({ organizationId, hour, userId }: Member & { hour: string }) =>
    routingKeys.routingHourlyCount(organizationId, hour, userId),
  identity: ({ organizationId, hour, userId }: Member & { hour: string }) => ({ organizationId, hour, userId }),
  indexes: {},
});

/** The routed leads a member holds open (`open`), for the open-leads cap. */
export const RoutingOpenCountEntity = defineEntity({
  name: "RoutingOpenCount",
  attributes: [],
  key: ({ organizationId, userId }: Member) => routingKeys.routingOpenCount(organizationId, userId),
  identity: ({ organizationId, userId }: Member) => ({ organizationId, userId }),
  indexes: {},
});

/** Whether a member marked themselves away (`away`), and when. */
export const RoutingAwayEntity = defineEntity({
  name: "RoutingAway",
  attributes: [],
  key: ({ organizationId, userId }: Member) => routingKeys.routingAway(organizationId, userId),
  identity: ({ organizationId, userId }: Member & { away: boolean; modifiedAt: string }) => ({
    organizationId,
    userId,
  }),
  indexes: {},
});

/** When routing last gave a member a lead by a least-recently-assigned rule (`at`). */
export const RoutingLastAssignedEntity = defineEntity({
  name: "RoutingLastAssigned",
  attributes: [],
  key: ({ organizationId, userId }: Member) => routingKeys.routingLastAssigned(organizationId, userId),
  identity: ({ organizationId, userId }: Member) => ({ organizationId, userId }),
  indexes: {},
});
