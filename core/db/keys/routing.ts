import { org, type Key } from "#core/db/keys/shared";

/** Keys of the items core/routing owns (docs/data-model.md, docs/routing.md). */
export const routingKeys = {
  /** The organization's routing rules (ordered) and lead-visibility settings, one item. */
  routingSettings: (organizationId: string): Key => ({ pk: org(organizationId), sk: "SETTINGS#ROUTING" }),
  /**
   * A rule's round-robin position (`seq`: how many leads the rule has assigned). One item per rule, moved only by a
   * atomic add per lead routed round robin or weighted (core/routing `takeTicket`).
   */
  routingCounter: (organizationId: string, ruleId: string): Key => ({
    pk: org(organizationId),
    sk: `ROUTING#COUNTER#${ruleId}`,
  }),
  /** How many leads routing gave one user on one day (the organization's time zone), for the daily cap; expires after. */
  routingDailyCount: (organizationId: string, day: string, userId: string): Key => ({
    pk: org(organizationId),
    sk: `ROUTING#DAY#${day}#${userId}`,
  }),
  /** The same for one clock hour (`YYYY-MM-DDTHH`), for the hourly cap. */
  routingHourlyCount: (organizationId: string, hour: string, userId: string): Key => ({
    pk: org(organizationId),
    sk: `ROUTING#HOUR#${hour}#${userId}`,
  }),
  /**
   * How many routed leads the user holds open (`open`: assigned by routing, not yet answered, not reassigned), for
   * the open-leads cap: up by routing in the assignment's transaction, down once per lead (`openFor` on the lead).
   */
  routingOpenCount: (organizationId: string, userId: string): Key => ({
    pk: org(organizationId),
    sk: `ROUTING#OPEN#${userId}`,
  }),
  /** Whether the user marked themselves away (`away`): routing skips them meanwhile. */
  routingAway: (organizationId: string, userId: string): Key => ({
    pk: org(organizationId),
    sk: `ROUTING#AWAY#${userId}`,
  }),
  /** When routing last gave the user a lead by a least-recently-assigned rule (`at`), moved only if unchanged since read. */
  routingLastAssigned: (organizationId: string, userId: string): Key => ({
    pk: org(organizationId),
    sk: `ROUTING#LAST#${userId}`,
  }),
};
