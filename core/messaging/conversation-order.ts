import * as Messages from "#core/messaging/messages";
import type { Message } from "#core/messaging/model";
import { storedNames } from "#core/messaging/store";

/**
 * A conversation's outbound messages reach the contact in the order we
 * accepted them. Pacing alone does not promise it: two sends of one
 * conversation that both wait for their number (in the queue, delayed to their
 * slots) are redelivered in no set order, and whichever books the number's
 * hand-over first goes first. So before a Queued send takes a slot, it looks at
 * the conversation's messages accepted just before it: while one of them is
 * still waiting to be handed over (Pending or Queued), this one waits behind it.
 * A Scheduled one holds it back only once its time has come (it is about to be
 * released: a burst that waited in order and was moved to the next window start
 * together, when quiet hours began, comes back at one instant and must still go
 * in order); before, it does not (a later send may be meant to go sooner, or
 * overrides quiet hours on purpose). Nor does one already with the carrier
 * (Sending: the number's hand-over spacing keeps the two apart).
 *
 * On a number paced in lanes (faster than 10 a second, core/messaging/pacing.ts), two sends take different lanes,
 * whose hand-overs are not ordered, or one lane, whose spacing (200 ms) is no more than a request's own time to the
 * carrier can vary. There a send also waits behind the conversation's one still being handed over (`handingOver`:
 * Sending, claimed less than HANDING_OVER_MS ago, no answer from its carrier yet) when it would go through the same
 * number (core/messaging/outbound.ts decides, once it has chosen its sender).
 */

/** How many of the conversation's newest earlier messages are looked at (one page of an index, the common case none). */
const LOOK_BACK = 5;

const WAITING_TO_GO = new Set(["Pending", "Queued"]);

export type WaitingAhead = Pick<Message, "id" | "status" | "nextRetryAt">;

/** A conversation's earlier message being handed over now, through the number `fromPhoneNumberId`. */
export type HandingOver = { id: string; fromPhoneNumberId: string };

/**
 * How long after its claim a Sending message with no carrier answer yet counts as being handed over: its booked
 * hand-over comes a second or two after the claim, its gate may wait up to 10 s more for the send booked before it
 * (PREDECESSOR_GONE_MS), its request up to 10 s for the carrier, and a failover as long again. Past this, it is one
 * whose answer was lost (the receipt sweep settles it), which holds nothing back: a crashed claim delays its
 * conversation's next message on a laned number by this much at most.
 */
const HANDING_OVER_MS = 35_000;

/**
 * The conversation's outbound messages accepted before `message` that go before it: `waiting`, the oldest not gone to
 * the carrier yet, if any; else `handingOver`, the newest being handed over, if any.
 */
export async function conversationAhead(
  organizationId: string,
  message: Message,
  now = Date.now(),
): Promise<{ waiting?: WaitingAhead; handingOver?: HandingOver }> {
  const [claimedAt, numberId, scheduledFor] = [
    storedNames.sendingStartedAt!,
    storedNames.fromPhoneNumberId!,
    storedNames.scheduledFor!,
  ];
  const earlier = (
    await Messages.before(organizationId, message.conversationId, message.id, LOOK_BACK, [
      "id",
      "direction",
      "status",
      "nextRetryAt",
      "providerMessageId",
      claimedAt,
      numberId,
      scheduledFor,
    ])
  ).filter((item) => item.direction === "Outbound");
  // A message with a purpose (a STOP or HELP answer, an agent alert) is not held behind a text whose time has come:
  // it answers now, and a text due after a STOP is blocked at its own dispatch anyway.
  const due = (item: Record<string, unknown>) =>
    !message.purpose &&
    item.status === "Scheduled" &&
    typeof item[scheduledFor] === "string" &&
    Date.parse(item[scheduledFor]) <= now;
  const ahead = earlier.filter((item) => WAITING_TO_GO.has(String(item.status)) || due(item)).at(-1);
  if (ahead)
    return {
      waiting: {
        id: String(ahead.id),
        status: ahead.status as Message["status"],
        nextRetryAt: typeof ahead.nextRetryAt === "string" ? ahead.nextRetryAt : null,
      },
    };
  const handing = earlier.find(
    (item) =>
      item.status === "Sending" &&
      !item.providerMessageId &&
      typeof item[numberId] === "string" &&
      now - Date.parse(String(item[claimedAt])) < HANDING_OVER_MS,
  );
  return handing ? { handingOver: { id: String(handing.id), fromPhoneNumberId: String(handing[numberId]) } } : {};
}
