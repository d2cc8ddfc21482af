import { defineEntity } from "#core/db/entity";
import { routingKeys } from "#core/db/keys/routing";
import type { Key } from "#core/db/keys/shared";

/*
 * The items core/routing owns (docs/routing.md, docs/data-model.md): the organization's settings, and per rule or
 * member the small counters and marks that keep concurrent routing exact. Each is one item under the organization,
 * read and written by key; none has a secondary index.
 */

type Member = { organizationId: string; userId: string };
type MemberPeriod = Member & { period: string };

/** An item per member of the organization, keyed by their user id. */
/* @__NO_SIDE_EFFECTS__ */
function memberEntity(name: string, key: (organizationId: string, userId: string) => Key) {
  return defineEntity({
    name,
    attributes: [],
    key: ({ organizationId, userId }: Member) => key(organizationId, userId),
    identity: ({ organizationId, userId }: Member & Record<string, unknown>) => ({ organizationId, userId }),
    indexes: {},
  });
}

/** A member's count of one period (a day, a clock hour) against a cap; it expires after the period. */
/* @__NO_SIDE_EFFECTS__ */
function periodCountEntity(name: string, key: (organizationId: string, period: string, userId: string) => Key) {
  return defineEntity({
    name,
    attributes: [],
    key: ({ organizationId, period, userId }: MemberPeriod) => key(organizationId, period, userId),
    identity: ({ organizationId, period, userId }: MemberPeriod) => ({ organizationId, period, userId }),
    indexes: {},
  });
}

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

/** The leads routing gave a member on one day of the organization's time zone (`assigned`), for the daily cap. */
export const RoutingDailyCountEntity = periodCountEntity("RoutingDailyCount", routingKeys.routingDailyCount);

/** The same for one clock hour (`YYYY-MM-DDTHH`), for the hourly cap. */
export const RoutingHourlyCountEntity = periodCountEntity("RoutingHourlyCount", routingKeys.routingHourlyCount);

/** The routed leads a member holds open (`open`), for the open-leads cap. */
export const RoutingOpenCountEntity = memberEntity("RoutingOpenCount", routingKeys.routingOpenCount);

/** Whether a member marked themselves away (`away`), and when. */
export const RoutingAwayEntity = memberEntity("RoutingAway", routingKeys.routingAway);

/** When routing last gave a member a lead by a least-recently-assigned rule (`at`). */
export const RoutingLastAssignedEntity = memberEntity("RoutingLastAssigned", routingKeys.routingLastAssigned);
