import { RoutingOpenCountEntity } from "#core/db/entities/routing";
import { computed, where } from "#core/db/expression";
import type { TransactItem } from "#core/db/transact";

/**
 * The write that closes one open lead of the user: their open-leads count down by one. It goes in one transaction
 * with removing the lead's `openFor` (on condition it still names the user), so each lead closes once. Its own small
 * module: the analytics aggregator closes a lead when it sees the lead answered, and must not load all of routing.
 */
export function openLeadClosed(organizationId: string, userId: string): TransactItem {
  return {
    Update: RoutingOpenCountEntity.update(
      { organizationId, userId },
      { open: computed.increment(-1) },
      { condition: where.after("open", 0) },
    ),
  };
}
