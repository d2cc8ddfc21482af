import { isConditionFailed, table } from "#core/db/items";
import { AnalyticsUnreadEntity } from "#core/db/entities/messaging";
import { computed, where } from "#core/db/expression";
import { keys } from "#core/db/keys";
import { prefixItems } from "#core/db/query";

/**
 * The unread ledger: one small item per conversation with unread inbound
 * messages (how many, and since when). Messaging keeps it beside the
 * conversation; the analytics report reads it (`waiting`) for the
 * "unanswered for over an hour" figures, without reading conversations.
 * Its writes never fail the message or read they follow: a lost update only
 * skews the report until the next message or read.
 */

/** One more unread inbound message in the conversation, at `at`. */
export async function onUnread(organizationId: string, conversationId: string, at: string): Promise<void> {
  await table
    .update(
      AnalyticsUnreadEntity.update(
        { organizationId, conversationId },
        {
          entity: AnalyticsUnreadEntity.name,
          conversationId,
          oldestUnreadAt: computed.ifAbsent(at),
          lastUnreadAt: at,
          unreadCount: computed.increment(),
        },
      ),
    )
    .catch((error: unknown) =>
      console.error(
        JSON.stringify({
          level: "error",
          message: "analytics unread not updated",
          organizationId,
          conversationId,
          error: String(error),
        }),
      ),
    );
}

/** The conversation was read at `readAt`: it leaves the ledger (unless a newer message arrived since). */
export async function onRead(organizationId: string, conversationId: string, readAt: string): Promise<void> {
  await table
    .delete(
      AnalyticsUnreadEntity.remove(
        { organizationId, conversationId },
        { condition: where.any(where.absent("lastUnreadAt"), where.atMost("lastUnreadAt", readAt)) },
      ),
    )
    .catch((error: unknown) => {
      if (!isConditionFailed(error)) {
        console.error(
          JSON.stringify({
            level: "error",
            message: "analytics unread not cleared",
            organizationId,
            conversationId,
            error: String(error),
          }),
        );
      }
    });
}

/** Every conversation waiting with unread messages: how many, and the oldest one's time. */
export async function waiting(organizationId: string): Promise<{ unreadCount: number; oldestUnreadAt: string }[]> {
  const items = await prefixItems(organizationId, keys.analyticsUnread(organizationId, "").sk);
  return items.map((item) => ({
    unreadCount: Number(item.unreadCount ?? 0),
    oldestUnreadAt: String(item.oldestUnreadAt ?? ""),
  }));
}
