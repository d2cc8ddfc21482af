import { org, type Key } from "#core/db/keys/shared";

/** Keys of the items core/routing owns (docs/data-model.md, docs/routing.md). */
export const routingKeys = {
  /** The organization's routing rules (ordered) and lead-visibility settings, one item. */
  routingSettings: (organizationId: string): Key => ({ pk: org(organizationId), sk: "SETTINGS#ROUTING" }),
  /**
   * A rule's round-robin position (`seq`: how many leads the rule has assigned). One item per rule, moved only by a
   * conditional update in the same transaction as the lead it assigns (core/leads/assignment.ts).
   */
  routingCounter: (organizationId: string, ruleId: string): Key => ({ pk: org(organizationId), sk: `ROUTING#COUNTER#${ruleId}` }),
  /** How many leads routing gave one user on one day (the organization's time zone), for the daily cap; expires after. */
  routingDailyCount: (organizationId: string, day: string, userId: string): Key => ({ pk: org(organizationId), sk: `ROUTING#DAY#${day}#${userId}` }),
};
