import { Messages } from "#core/messaging/messages";
import type { Message } from "#core/messaging/model";

/**
 * A conversation's outbound messages reach the contact in the order we
 * accepted them. Pacing alone does not promise it: two sends of one
 * conversation that both wait for their number (in the queue, delayed to their
 * slots) are redelivered in no set order, and whichever books the number's
 * hand-over first goes first. So before a Queued send takes a slot, it looks at
 * the conversation's messages accepted just before it: while one of them is
 * still waiting to be handed over (Pending or Queued), this one waits behind it.
 * A Scheduled one does not hold it back (a later send may be meant to go
 * sooner, or overrides quiet hours on purpose), nor does one already with the
 * carrier (Sending: the number's hand-over spacing keeps the two apart).
 */

/** How many of the conversation's newest earlier messages are looked at (one page of an index, the common case none). */
const LOOK_BACK = 5;

const WAITING_TO_GO = new Set(["Pending", "Queued"]);

export type WaitingAhead = Pick<Message, "id" | "status" | "nextRetryAt">;

/** The conversation's outbound message accepted before `message` that has not gone to the carrier yet, if any (the oldest such). */
export async function waitingAhead(organizationId: string, message: Message): Promise<WaitingAhead | undefined> {
  const earlier = await Messages.before(organizationId, message.conversationId, message.id, LOOK_BACK, [
    "id",
    "direction",
    "status",
    "nextRetryAt",
  ]);
  const ahead = earlier
    .filter((item) => item.direction === "Outbound" && WAITING_TO_GO.has(String(item.status)))
    .at(-1);
  if (!ahead) return undefined;
  return {
    id: String(ahead.id),
    status: ahead.status as Message["status"],
    nextRetryAt: typeof ahead.nextRetryAt === "string" ? ahead.nextRetryAt : null,
  };
}
