import { setTimeout as sleep } from "node:timers/promises";
import { PhoneNumberEntity, PhoneNumberLaneEntity } from "#core/db/entities/phone-numbers";
import { computed, where, type Condition } from "#core/db/expression";
import { conditionally, table } from "#core/db/items";
import * as Conversations from "#core/messaging/conversations";
import { DISPATCH_GRACE_MS } from "#core/messaging/lifecycle";
import type { Message } from "#core/messaging/model";
import { MessageSend } from "#core/messaging/queue";
import { changeMessage } from "#core/messaging/store";
import type { ProviderError } from "#core/providers/port";
import { maxDelaySeconds, publish } from "#core/queue/messages";
import type { SenderSelectionReason } from "#core/shared/enums";
import { parsePhone } from "#core/shared/phone";
import { pacingOf } from "#core/messaging/phone-numbers";

/**
 * Per-number pacing of outbound SMS: each sender number hands the carrier at
 * most its messages per second. A number's next free send slot (`paceNextAt`,
 * epoch ms) lives on its own phone-number item, which sender choice already
 * reads, so knowing how busy every number is costs no extra read, and a send
 * reserves its slot with one conditional write: "the number is free: the slot
 * is now" or "it is busy: take the slot after the last one reserved". A send
 * whose slot is ahead waits in the queue (SQS DelaySeconds), never in a loop,
 * and is never refused; the carrier's own throttling (429, 30022) moves only
 * that number's next slot ("not before"), not the queue.
 *
 * A slot says when a send may go, not that it goes then: a consumer running
 * late would hand over together every send whose slot has passed. So the
 * hand-over itself is paced too: just before it, a send reserves the number's
 * next hand-over time (`paceHandedAt`, one conditional write), in the send
 * window after the previous one's (below); a send whose hand-over time is
 * further away goes back to the queue, delayed to it, instead. The send then
 * sleeps until that time immediately before the carrier request
 * (`untilHandOver`, after the claim).
 *
 * A timer can fire late (a stalled process), so the request itself passes a
 * gate first: one conditional write stamps the number's last request
 * (`paceSentBy`, the latest time that request leaves) and refuses while the
 * previous request could still reach the carrier in this send's window, and
 * while the send booked just before this one (`HandOver.after`) has not passed
 * the gate yet (`paceSentTurn`, the booked time of the last send through it):
 * requests go in booking order, which keeps a conversation's order.
 *
 * Windows, not intervals: a number's time is cut into send windows, as many in
 * each clock second as its messages per second (a 1 MPS long code: the clock
 * second itself; below 1 MPS, one window of whole seconds). A hand-over is
 * booked into the window after the previous one's, at its start, and at most
 * one request of the number reaches the carrier in each window, so never more
 * than its rate in one clock second, which is what carriers count. A send late
 * within its window (a slow claim, a timer firing late) does not push the
 * sends behind it: the next one still goes at the start of its own window, so
 * a burst keeps the full rate (one interval between sends on average) instead
 * of adding every delay to every later send. Two requests of a number can come
 * closer than one interval (a late one, then one at the start of the next
 * window), never closer than twice the margin.
 *
 * Lanes: a number faster than LANED_ABOVE (a short code's 100 MPS) is paced as several lanes, each a
 * pacer as above at its share of the rate, with its state in an item of its own (lane 0 is the number's item). One
 * gate write per request cannot keep up with a window shorter than a conditional write's round trip: at 50 MPS a
 * window is 20 ms, and a burst through one such number once took ~1,500 DynamoDB calls a message. A lane's
 * windows are 200 ms or longer, and together the lanes never send more than the number's rate in a clock second. A
 * send takes the lane next in turn; a conversation's order across lanes is kept before pacing: its next message waits
 * until the earlier one is with the carrier (core/messaging/conversation-order.ts).
 */

/** What a number type carries by default (messages per second): a 10DLC long code ~1, toll-free 3, short code 100. */
export const MESSAGES_PER_SECOND = { LongCode: 1, TollFree: 3, ShortCode: 100 } as const;
export type NumberType = keyof typeof MESSAGES_PER_SECOND;

/** How long a throttled number sends nothing when the carrier gave no Retry-After. */
export const THROTTLE_BACKOFF_MS = 5_000;

/** The paced view of a sender number: its override (if any) and when its next send slot is free. */
export type PacedNumber = {
  id: string;
  phoneNumber: string;
  messagesPerSecond: number | null;
  paceNextAt: number;
  /** The lane a send paces on (`onLane`); absent or 0: the number's own item, its only lane when it is slow. */
  lane?: number;
};

/** Where a send's pacing state lives: the number's item (lane 0), or one of its lanes' items. */
type PaceTarget = Pick<PacedNumber, "id" | "lane">;

/** A number faster than this (messages a second) is paced as several lanes (`lanesOf`); one this fast or slower, as one. */
export const LANED_ABOVE = 10;

/**
 * The most one lane of a laned number sends a second: 200 ms windows, a 40 ms gate margin, several conditional writes'
 * round trips. Lanes of 10 (100 ms windows, a 20 ms margin) were tried first: under load a write took longer than
 * their margin, and a burst's sends were refused at the gate about once a send and read it again (docs/decisions.md,
 * thirteenth pass).
 */
export const LANE_MESSAGES_PER_SECOND = 5;

/**
 * A slot reserved on a number: the send goes to the carrier at `at` (epoch ms); `reason` is why the number was chosen;
 * `lane`, the number's lane it was reserved on (absent: lane 0).
 */
export type Slot = { numberId: string; at: number; reason: string; lane?: number };

/**
 * A booked hand-over: the send goes to the carrier at `at` (epoch ms), after the send booked before it on the number,
 * whose time was `after` (null: none still waiting).
 */
export type HandOver = { at: number; after: number | null };

/**
 * A send's booked hand-over on its number, carried to its carrier request: `passed` once it passed the gate or gave
 * up its turn (`skipHandOver`), `sentBy` the gate's stamp of its last request (the latest time it leaves).
 */
export type Turn = { number: PacedNumber; handOver: HandOver; passed: boolean; sentBy?: number };

/** A slot this close is waited for in the consumer (a timer, not a loop); a later one in the queue. SQS delays are whole seconds. */
const WAIT_IN_PLACE_MS = 1_000;

/**
 * The most a request takes from the gate to the carrier, and the gate's own write (at most a fifth of a window): a
 * request counts in the window it may reach the carrier in, its stamp plus this margin. Too small, and that time's
 * variation under load would put two sends of a 1 MPS number into one clock second now and then.
 */
const HAND_OVER_MARGIN_MS = 200;

/**
 * A hand-over time is booked into a window the send can still pass the gate in at least this long from now, before
 * the claim: the claim and the hand-over bookkeeping run in between (measured under load: a send booked for "now"
 * reached the carrier 400 ms later), and the send then sleeps the rest right before the carrier request.
 */
const HAND_OVER_LEAD_MS = 500;

/**
 * A send booked before this one that has not passed the gate this long after its booked time is taken for gone (its
 * process crashed between the booking and the request), and the send behind it goes without it. A process stalled
 * longer than this can put its conversation's earlier message after the later one.
 */
const PREDECESSOR_GONE_MS = 10_000;

/** How often a send behind one that has not passed the gate yet looks again (a timer, at most until that one is gone). */
const PREDECESSOR_RECHECK_MS = 250;

export function numberType(phoneNumber: string): NumberType {
  if (/^\d{5,6}$/.test(phoneNumber)) return "ShortCode";
  return parsePhone(phoneNumber)?.tollFree ? "TollFree" : "LongCode";
}

/**
 * A number's send windows: `perPeriod` of them in each period of `periodMs` (a clock second; whole seconds for a
 * number slower than 1 MPS), periods starting at multiples of `periodMs` since the epoch. At most one request of the
 * number reaches the carrier in each window.
 */
type SendWindows = { perPeriod: number; periodMs: number };

function windowsOf(number: Pick<PacedNumber, "phoneNumber" | "messagesPerSecond">): SendWindows {
  const { perSecond } = lanesOf(number);
  // 2.5 MPS is 2 in any clock second; 0.3 MPS one every 4 s (rounded to the millisecond first: 1 / 0.2 is 5, not 5.000…1).
  return perSecond >= 1
    ? { perPeriod: Math.floor(perSecond), periodMs: 1000 }
    : { perPeriod: 1, periodMs: Math.ceil(Math.round(1000 / perSecond) / 1000) * 1000 };
}

/**
 * How a number's rate is split into lanes: `count` lanes of `perSecond` each. One lane up to LANED_ABOVE (every long
 * code and toll-free number, paced as before lanes); above, lanes of at most LANE_MESSAGES_PER_SECOND whole messages
 * a second (a carrier counts whole messages in a clock second): of the splits into ceil(rate / lane) to four times
 * that many lanes, the one losing the least of the rate, then the fewest lanes (50 MPS: 10 of 5; a short code's 100:
 * 20 of 5; 14: 7 of 2; 17: 4 of 4).
 */
export function lanesOf(number: Pick<PacedNumber, "phoneNumber" | "messagesPerSecond">): {
  count: number;
  perSecond: number;
} {
  const rate = number.messagesPerSecond ?? MESSAGES_PER_SECOND[numberType(number.phoneNumber)];
  if (rate <= LANED_ABOVE) return { count: 1, perSecond: rate };
  const whole = Math.floor(rate);
  const fewest = Math.ceil(whole / LANE_MESSAGES_PER_SECOND);
  let best = { count: fewest, perSecond: Math.floor(whole / fewest) };
  for (let count = fewest + 1; count <= 4 * fewest && best.count * best.perSecond < whole; count++) {
    const perSecond = Math.floor(whole / count);
    if (count * perSecond > best.count * best.perSecond) best = { count, perSecond };
  }
  return best;
}

/**
 * Each laned number's turn of the next send in this instance: sends take a number's lanes in turn, so a burst one
 * consumer dispatches fills them evenly, whatever other numbers sender choice looks at. From a random start, so that
 * instances do not all begin at lane 0.
 */
const laneTurns = new Map<string, number>();

/**
 * Each pacing target's state as this instance last wrote or read it: its next free slot (`paceNextAt`) and its last
 * booked hand-over (`paceHandedAt`). Sender choice reads only the numbers' own items (a lane's view carries lane 0's
 * slot), so a send booked right after another on the same lane tried "now" there, or assumed no hand-over in its
 * window, and was refused. A hint only spares such a refused write: the conditional writes decide, and a stale hint
 * costs the one refused write (and read) it was meant to save.
 */
const seen = new Map<string, { nextAt?: number; handedAt?: number }>();
const targetKey = (organizationId: string, target: PaceTarget) => `${organizationId}#${target.id}#${target.lane ?? 0}`;

function note(organizationId: string, target: PaceTarget, state: { nextAt?: number; handedAt?: number }): void {
  // Kept small: an instance paces a few numbers' lanes at a time.
  if (seen.size > 10_000) seen.clear();
  const key = targetKey(organizationId, target);
  const known = seen.get(key) ?? {};
  seen.set(key, {
    nextAt: Math.max(state.nextAt ?? 0, known.nextAt ?? 0),
    ...(state.handedAt !== undefined || known.handedAt !== undefined
      ? { handedAt: Math.max(state.handedAt ?? 0, known.handedAt ?? 0) }
      : {}),
  });
}

/** When the target's next slot is free, as the number's view and this instance's own writes tell. */
function nextAtOf(organizationId: string, number: PacedNumber): number {
  return Math.max(number.paceNextAt, seen.get(targetKey(organizationId, number))?.nextAt ?? 0);
}

/**
 * This instance's bookings on one target, one at a time: sends dispatched together read the same view and raced for
 * the item, all but one refused. One after another, each books after the state its predecessor wrote (`seen`). Only
 * the booking writes wait here (a write or two each), never a send's sleep or its gate; and a booking waits for the
 * one before it at most BOOKING_WAIT_MS (a DynamoDB call that hangs holds up only its own send, as before).
 */
const bookings = new Map<string, Promise<unknown>>();
const BOOKING_WAIT_MS = 2_000;

function oneBookingAtATime<T>(organizationId: string, target: PaceTarget, work: () => Promise<T>): Promise<T> {
  const key = targetKey(organizationId, target);
  const before = bookings.get(key);
  const waited = before ? Promise.race([before, sleep(BOOKING_WAIT_MS, undefined, { ref: false })]) : Promise.resolve();
  const turn = waited.then(work, work);
  const settled = turn.then(
    () => undefined,
    () => undefined,
  );
  bookings.set(key, settled);
  // The last in line clears the entry, so the map holds only targets being booked right now.
  void settled.then(() => {
    if (bookings.get(key) === settled) bookings.delete(key);
  });
  return turn;
}

/** The index of the window holding `at` (epoch ms). */
function windowOf({ perPeriod, periodMs }: SendWindows, at: number): number {
  const period = Math.floor(at / periodMs);
  return period * perPeriod + Math.floor(((at - period * periodMs) * perPeriod) / periodMs);
}

/** When window `index` opens (epoch ms): the first millisecond `windowOf` places in it. */
function windowStart({ perPeriod, periodMs }: SendWindows, index: number): number {
  const period = Math.floor(index / perPeriod);
  return period * periodMs + Math.ceil(((index - period * perPeriod) * periodMs) / perPeriod);
}

/** The first window a request stamped `sentBy` leaves to the number's next one: it reaches the carrier before it opens. */
function nextOpening(windows: SendWindows, margin: number, sentBy: number): number {
  return windowStart(windows, windowOf(windows, sentBy + margin) + 1);
}

/** A window's length (ms; fractional when a second holds 3 of them). */
function windowMs(windows: SendWindows): number {
  return windows.periodMs / windows.perPeriod;
}

/** The gate's margin for this number: HAND_OVER_MARGIN_MS, at most a fifth of a window. */
function marginOf(windows: SendWindows): number {
  return Math.min(HAND_OVER_MARGIN_MS, Math.ceil(windowMs(windows) / 5));
}

/** Milliseconds between two of this number's send slots: one window (the number's interval, 1/MPS, rounded down). */
export function sendInterval(number: Pick<PacedNumber, "phoneNumber" | "messagesPerSecond">): number {
  return Math.max(1, Math.floor(windowMs(windowsOf(number))));
}

/**
 * Of numbers equally suited, the one that can send soonest (speed to lead): a
 * free number before a busy one, then the earliest next slot; ties stay in the
 * given order (the caller's own preference).
 */
export function leastBusy<T extends Pick<PacedNumber, "paceNextAt">>(numbers: T[], now: number): T | undefined {
  return [...numbers].sort((a, b) => Math.max(a.paceNextAt, now) - Math.max(b.paceNextAt, now))[0];
}

/**
 * The view of a sender number a send paces on: the lane next in turn of a number paced in lanes (`lanesOf`). Sender
 * choice reads only the numbers' own items, so its next free slot is lane 0's: lanes fill in turn, so lane 0 is as
 * busy as the others give or take a send, and a throttle holds them all. The booking's conditional write on the
 * lane's own item decides.
 */
export function onLane<T extends PacedNumber>(number: T): T & Pick<PacedNumber, "lane"> {
  const { count } = lanesOf(number);
  if (count === 1) return number;
  const turn = laneTurns.get(number.id) ?? Math.floor(Math.random() * count);
  laneTurns.set(number.id, (turn + 1) % count);
  return turn === 0 ? number : { ...number, lane: turn };
}

/**
 * Reserves the number's next send slot. One conditional write when the number
 * is as busy as sender choice read it (the usual case); a second only when it
 * turned free or busy meanwhile. Slots are handed out in reservation order, so
 * a conversation's later message (same sticky number) never goes before an earlier one. A free number's next slot
 * is the start of the send window after the one its send now will be handed over in (`reserveHandOver`), so the
 * slots after it start windows too (one interval apart) and a send does not wait claimed for a window its slot
 * did not count.
 */
export async function reserve(
  organizationId: string,
  number: PacedNumber,
  now = Date.now(),
  seenBusy = false,
): Promise<number> {
  const interval = sendInterval(number);
  const windows = windowsOf(number);
  const nextWindow = windowStart(windows, firstWindowFor(windows, now, now) + 1);
  let busy = seenBusy || nextAtOf(organizationId, number) > now;
  for (let attempt = 0; attempt < 3; attempt++) {
    const at = busy
      ? await reserveAfterLast(organizationId, number, interval, now)
      : await reserveNow(organizationId, number, nextWindow, now);
    if (at !== undefined) return at;
    busy = !busy;
  }
  // Freed and refilled twice in a row (or the number was just deleted): the slot after the last, else now.
  return (await reserveAfterLast(organizationId, number, interval, now)) ?? now;
}

/**
 * The number's hand-over now, when it is free now (its next slot has come): the turn of a send that may go at
 * once, else undefined (busy, or another send took it first). A message still Pending asks this before it is
 * written Queued (core/messaging/outbound.ts): free, it goes straight to Sending.
 */
export async function bookIfFree(organizationId: string, number: PacedNumber): Promise<Turn | undefined> {
  // Known busy: no turn to wait for. Else in turn, and asked again there (the one before may have booked it).
  if (nextAtOf(organizationId, number) > Date.now()) return undefined;
  const booked = await oneBookingAtATime(organizationId, number, async () =>
    nextAtOf(organizationId, number) > Date.now() ? undefined : bookNow(organizationId, number),
  );
  return booked ? { number, handOver: booked, passed: false } : undefined;
}

/**
 * Holds a Queued message until its sender's slot: the hand-over it booked
 * when it may go (at most one window and a second away; the caller waits for
 * it right before the carrier request, `untilHandOver`), else
 * undefined: the message went back to the
 * queue delayed to its slot, carrying it (a redelivery does not reserve
 * again), its dispatch deadline moved past the slot (the sweep must not
 * republish a message that is only waiting), and a conversation without a
 * sender yet gets this number now, so its next message queues behind this one.
 */
export async function awaitSlot(
  organizationId: string,
  message: Message,
  number: PacedNumber,
  reason: SenderSelectionReason,
  held: Slot | undefined,
  /** The caller just asked `bookIfFree` and was refused: the number is busy. */
  triedNow = false,
): Promise<Turn | undefined> {
  if (!triedNow && held?.numberId !== number.id) {
    const booked = await bookIfFree(organizationId, number);
    if (booked) return booked;
  }
  // Reserved only after the number refused a send now (above, or the caller's `bookIfFree`). On a lane, whose own
  // state sender choice did not read (its view carries lane 0's), that refusal says it is most likely busy: its slot
  // after the last, without trying "now" again.
  const slot =
    held?.numberId === number.id ? held.at : await reserve(organizationId, number, Date.now(), !!number.lane);
  // Only a send about to go takes a hand-over time: one further ahead would hold it while it waits in the queue.
  // About to go is a second, and up to a second more for a window's start: after a free number's send, the next
  // slot opens the window after the one that send is handed over in, up to a window and ~0.9 s away, and the send
  // right behind it (a conversation's next message) stays in place rather than going round the queue.
  const handOver =
    slot - Date.now() <= WAIT_IN_PLACE_MS + Math.min(windowMs(windowsOf(number)), WAIT_IN_PLACE_MS)
      ? await reserveHandOver(organizationId, number, slot)
      : { at: slot, after: null, reserved: false };
  const at = handOver.at;
  if (handOver.reserved) return { number, handOver: { at, after: handOver.after }, passed: false };
  await waitInQueue(organizationId, message, at, {
    slot: { numberId: number.id, at, reason, ...(number.lane ? { lane: number.lane } : {}) },
    whileHeld: async () => {
      if (reason !== "StickyConversation" && reason !== "ManualOverride")
        await Conversations.setSender(organizationId, message.conversationId, number);
    },
  });
  return undefined;
}

/**
 * The carrier throttled this number: none of its lanes sends before `retryAfter` (or the default backoff); other
 * numbers go on. A number of several lanes is read first, for its rate (throttles are rare).
 */
export async function throttled(
  organizationId: string,
  numberId: string,
  error: ProviderError,
  now = Date.now(),
): Promise<void> {
  const notBefore =
    now +
    (error.details.retryAfterSeconds !== undefined ? error.details.retryAfterSeconds * 1000 : THROTTLE_BACKOFF_MS);
  const stored = await PhoneNumberEntity.get(
    { organizationId, id: numberId },
    { attributes: ["phoneNumber", "messagesPerSecond"] },
  );
  const lanes = stored ? lanesOf({ ...pacingOf(stored), phoneNumber: String(stored.phoneNumber) }).count : 1;
  await Promise.all(
    Array.from({ length: lanes }, (_, lane) =>
      updatePace(
        organizationId,
        { id: numberId, lane },
        { paceNextAt: notBefore },
        where.any(where.absent("paceNextAt"), where.before("paceNextAt", notBefore)),
      ),
    ),
  );
}

/**
 * Puts a Queued message back in the queue until `at` (epoch ms; SQS delays go up to 15 minutes), carrying its
 * reserved `slot` if any, and moves its dispatch deadline past that time (the sweep must not republish a message that
 * is only waiting); `behind` names the conversation's earlier message it waits for instead of a slot. `whileHeld` runs
 * between the two, once the message is known to be still waiting. False when the message moved on meanwhile (nothing
 * is published).
 */
export async function waitInQueue(
  organizationId: string,
  message: Message,
  at: number,
  { slot, behind, whileHeld }: { slot?: Slot; behind?: string; whileHeld?: () => Promise<void> } = {},
): Promise<boolean> {
  const until = Math.min(at, Date.now() + maxDelaySeconds * 1000);
  const waiting = await changeMessage(organizationId, message.id, {
    from: ["Queued"],
    condition: where.equals("retryCount", message.retryCount),
    // What it waits for, for operators and the chaos harness: the conversation's earlier message, or its own slot.
    // Handled and waiting on purpose: the sweep's count of republishes (meant for a message nobody handles) restarts.
    // The slot is kept on the message too: a copy published without it (the sweep's) then takes it, not another.
    ...(behind
      ? { set: { waitingBehind: behind, sweepAttempts: 0 }, remove: ["heldSlot"] }
      : { set: { sweepAttempts: 0, ...(slot ? { heldSlot: slot } : {}) }, remove: ["waitingBehind"] }),
    due: { at: new Date(until + DISPATCH_GRACE_MS).toISOString(), kind: "Dispatch" },
  });
  if (!waiting) return false;
  await whileHeld?.();
  // Whole seconds, rounded down (at least one): it arrives up to a second early and waits the rest with the timer above.
  await publish(
    MessageSend,
    organizationId,
    { messageId: message.id, ...(slot ? { slot } : {}) },
    { delaySeconds: Math.max(1, Math.floor((until - Date.now()) / 1000)) },
  );
  return true;
}

/**
 * Right before the carrier request of a claimed send: sleeps until its booked hand-over time, then passes the number's
 * gate (`passGate`), so the request reaches the carrier in a window of its own, after the send booked before it.
 * Nothing of ours runs between the gate and the request.
 */
export async function untilHandOver(organizationId: string, turn: Turn): Promise<void> {
  await sleepUntil(turn.handOver.at);
  turn.sentBy = await passGate(organizationId, turn.number, turn.handOver, "send");
  turn.passed = true;
}

/**
 * Right before a second request of a send that passed the gate (the failover's, after the primary refused it): a
 * window of its own, like any request. The one after the primary's is taken at once, while the stamp is still that
 * send's: the send booked behind it (perhaps its conversation's next message) then waits a window more, so the
 * conversation's order holds. When a later send passed meanwhile (the primary's answer took longer than a window), it
 * passes the gate like any (its turn is passed already).
 */
export async function untilFailover(organizationId: string, turn: Turn): Promise<void> {
  const { number, sentBy } = turn;
  if (sentBy !== undefined) {
    const windows = windowsOf(number);
    const margin = marginOf(windows);
    const opens = nextOpening(windows, margin, sentBy);
    const by = Math.max(opens, Date.now()) + margin;
    const taken = await updatePace(organizationId, number, { paceSentBy: by }, where.equals("paceSentBy", sentBy));
    if (taken) {
      await sleepUntil(opens);
      const kept = await keptStamp(organizationId, number, by, margin);
      if (kept !== undefined) {
        turn.sentBy = kept;
        return;
      }
    }
  }
  turn.sentBy = await passGate(organizationId, number, turn.handOver, "again");
}

/**
 * A booked hand-over that sends nothing (its claim failed, the message moved on, a read or write before the gate
 * failed): it still spends its booked time and passes its turn at the gate, so the send booked behind it does not wait
 * for it. Nothing when it passed already.
 */
export async function skipHandOver(organizationId: string, turn: Turn): Promise<void> {
  if (turn.passed) return;
  turn.passed = true;
  await sleepUntil(turn.handOver.at);
  await passGate(organizationId, turn.number, turn.handOver, "skip");
}

/**
 * Codes by which a carrier says "this number sends too fast" (HTTP 429; Twilio 20429, 14107, 30022 throughput, 21611
 * number queue full; Telnyx 40011 "Rate limit exceeded (upstream)": https://developers.telnyx.com/docs/messaging/messages/error-codes).
 */
const THROTTLE_CODES = new Set(["20429", "14107", "30022", "21611", "40011"]);

/** A refusal of the send request that says "this number sends too fast". */
export function isThrottle(error: ProviderError): boolean {
  return (
    error.kind === "transient" &&
    !error.details.ambiguous &&
    (error.details.httpStatus === 429 || isThrottleCode(error.code))
  );
}

/**
 * A carrier error code that says "this number sends too fast", wherever it comes: Twilio answers most in the send's
 * receipt, after accepting the request (30022 "rejected by the downstream carriers for exceeding the rate limits
 * allowed by your campaign", 14107 "set … to failed status": https://www.twilio.com/docs/api/errors/30022, /14107),
 * Telnyx in its `message.finalized` (40011).
 */
export function isThrottleCode(code: string | null | undefined): boolean {
  return code !== null && code !== undefined && THROTTLE_CODES.has(code);
}

/**
 * The hand-over time of a send whose slot is near: in the first window after the previous hand-over's where the send
 * can pass the gate no earlier than its slot and HAND_OVER_LEAD_MS from now, yet early enough in the window to leave
 * the next one free (its stamp and margin end before the next window opens), at the window's start, or the slot or now
 * when later. Reserved (`paceHandedAt`) when it is at most a second past one window away, answering the booked time it
 * follows (`after`); a later one is only answered, for the send to wait in the queue and ask again. Two sends at the
 * hand-over at once are ordered by whose conditional write lands first.
 */
function reserveHandOver(
  organizationId: string,
  number: PacedNumber,
  slot: number,
): Promise<{ at: number; after: number | null; reserved: boolean }> {
  return oneBookingAtATime(organizationId, number, () => bookHandOver(organizationId, number, slot));
}

async function bookHandOver(
  organizationId: string,
  number: PacedNumber,
  slot: number,
): Promise<{ at: number; after: number | null; reserved: boolean }> {
  const windows = windowsOf(number);
  const window = windowMs(windows);
  // Unknown until read: first assume the previous hand-over is in an earlier window (the usual case: one write), unless
  // this instance booked one in or after that window itself: then after it.
  const hinted = seen.get(targetKey(organizationId, number))?.handedAt;
  const earliestOpens = windowStart(windows, firstWindowFor(windows, slot, Date.now()));
  let previous: number | null | undefined = hinted !== undefined && hinted >= earliestOpens ? hinted : undefined;
  for (let attempt = 0; attempt < 5; attempt++) {
    const now = Date.now();
    const earliest = firstWindowFor(windows, slot, now);
    const index = typeof previous === "number" ? Math.max(earliest, windowOf(windows, previous) + 1) : earliest;
    const opens = windowStart(windows, index);
    const at = Math.max(opens, slot, now);
    // Waited in place up to a second past one window: the send right behind a passing one stays on its number
    // (back in the queue, it would choose its sender again).
    if (at - now > WAIT_IN_PLACE_MS + window) return { at, after: null, reserved: false };
    // The gate's turn starts (on a number that has none yet) just after every hand-over booked before this one.
    const floor = previous === undefined ? opens - 1 : (previous ?? 0);
    const written = await updatePace(
      organizationId,
      number,
      { paceHandedAt: at, paceSentTurn: computed.ifAbsent(floor) },
      previous === undefined
        ? where.any(where.absent("paceHandedAt"), where.before("paceHandedAt", opens))
        : previous === null
          ? where.absent("paceHandedAt")
          : where.equals("paceHandedAt", previous),
      "UPDATED_OLD",
    );
    if (written) {
      note(organizationId, number, { handedAt: at });
      const old = written.Attributes?.paceHandedAt;
      return { at, after: typeof old === "number" ? old : null, reserved: true };
    }
    const Item = await readPace(organizationId, number, ["paceHandedAt"]);
    // The number is gone: nothing to pace, the send fails at the carrier or is refused.
    if (!Item) return { at, after: null, reserved: true };
    previous = typeof Item.paceHandedAt === "number" ? Item.paceHandedAt : null;
    if (previous !== null) note(organizationId, number, { handedAt: previous });
  }
  // Contended five times in a row: ask again in a second or two.
  return { at: Date.now() + WAIT_IN_PLACE_MS + window, after: null, reserved: false };
}

/**
 * A number sender choice read as free: its slot (now) and its hand-over in ONE conditional write, what `reserve`
 * and `reserveHandOver` write in two when both conditions hold (the number still free, no hand-over booked in or after
 * the window this one takes). Undefined when either changed since the read: the caller books in the two steps.
 */
async function bookNow(organizationId: string, number: PacedNumber): Promise<HandOver | undefined> {
  const windows = windowsOf(number);
  const now = Date.now();
  const index = firstWindowFor(windows, now, now);
  const opens = windowStart(windows, index);
  const at = Math.max(opens, now);
  if (at - now > WAIT_IN_PLACE_MS + windowMs(windows)) return undefined;
  const written = await updatePace(
    organizationId,
    number,
    { paceNextAt: windowStart(windows, index + 1), paceHandedAt: at, paceSentTurn: computed.ifAbsent(opens - 1) },
    where.all(
      where.any(where.absent("paceNextAt"), where.atMost("paceNextAt", now)),
      where.any(where.absent("paceHandedAt"), where.before("paceHandedAt", opens)),
    ),
    "UPDATED_OLD",
  );
  if (!written) return undefined;
  note(organizationId, number, { nextAt: windowStart(windows, index + 1), handedAt: at });
  const old = written.Attributes?.paceHandedAt;
  return { at, after: typeof old === "number" ? old : null };
}

/**
 * The first window a send booked now, whose slot is `slot`, can pass the gate in: no earlier than its slot and
 * HAND_OVER_LEAD_MS from now, and early enough in the window to leave the next one free (a gate passed at t stamps
 * t + margin, which must end a margin before the next window opens).
 */
function firstWindowFor(windows: SendWindows, slot: number, now: number): number {
  return windowOf(windows, Math.max(slot, now + HAND_OVER_LEAD_MS) + 2 * marginOf(windows));
}

/** What the gate keeps on the number: when its last request left at the latest, and that send's booked hand-over time. */
type GateState = { sentBy: number; turn: number };

/**
 * How a send passes the gate: `send` stamps its request and takes its turn, `skip` (nothing sent) only takes its turn,
 * `again` (a second request, the failover's, whose turn is taken) only stamps.
 */
type Pass = "send" | "skip" | "again";

/**
 * The gate right before a number's carrier request, or the passing of a turn that sends nothing. One conditional
 * write in the usual case: `paceSentBy` plus the margin before the current window opened (the previous request
 * reached the carrier in an earlier window), `paceSentTurn` at least `after` (the send booked before this one has
 * passed) and below this one's booked time (so the turn only moves forward); it sets `paceSentBy` to now plus the
 * margin (the latest the request leaves, the write's own time included) and `paceSentTurn` to this send's booked time.
 * When the write took longer than the margin, the request would leave after the stamp: the stamp moves forward
 * (conditional on it still being this send's), with twice the margin each time. Refused: a consistent read of the two,
 * a timer for what is left (the window after the previous request's, or a recheck of the send before it, at most until
 * PREDECESSOR_GONE_MS past its booked time), and the write again. A send whose turn a later one already took (it took
 * this one for gone) does not move the turn back. No loop without a timer or a DynamoDB round trip between its rounds.
 * Answers the stamp of a request that passed (undefined when nothing was stamped: a skip, or the number is gone).
 */
async function passGate(
  organizationId: string,
  number: PacedNumber,
  handOver: HandOver,
  pass: Pass,
): Promise<number | undefined> {
  const windows = windowsOf(number);
  const margin = marginOf(windows);
  const stamps = pass !== "skip";
  const turns = pass !== "again";
  let state: GateState | undefined;
  for (;;) {
    if (state) {
      const now = Date.now();
      const waiting = turns ? waitingFor(handOver, state, now) : undefined;
      const until = Math.max(
        stamps ? nextOpening(windows, margin, state.sentBy) : 0,
        waiting ? Math.min(now + PREDECESSOR_RECHECK_MS, waiting) : 0,
      );
      if (until > now) await sleep(until - now);
      if (waiting) {
        state = await gateState(organizationId, number);
        if (!state) return undefined;
        continue;
      }
    }
    const takesTurn = turns && !(state !== undefined && state.turn >= handOver.at);
    if (!stamps && !takesTurn) return undefined;
    const now = Date.now();
    const predecessorGone = handOver.after === null || now >= handOver.after + PREDECESSOR_GONE_MS;
    const by = now + margin;
    const written = await updatePace(
      organizationId,
      number,
      {
        ...(stamps ? { paceSentBy: by } : {}),
        ...(takesTurn ? { paceSentTurn: handOver.at } : {}),
        // A send marks its number used here (sender choice's least recently used), not in a write of its own; on a
        // number of several lanes, the sends of its lane 0 do (the others write their lanes' items, and mark the
        // number after their request: `markLaneUsed`).
        ...(pass === "send" && !number.lane ? { lastUsedAt: new Date(now).toISOString() } : {}),
      },
      where.all(
        stamps
          ? where.any(
              where.absent("paceSentBy"),
              where.before("paceSentBy", windowStart(windows, windowOf(windows, now)) - margin),
            )
          : undefined,
        takesTurn ? where.any(where.absent("paceSentTurn"), where.before("paceSentTurn", handOver.at)) : undefined,
        // Booking set the turn if the number had none, so a missing one is never "passed".
        takesTurn && !predecessorGone ? where.atLeast("paceSentTurn", handOver.after!) : undefined,
      ),
    );
    if (written) {
      if (!stamps) return undefined;
      const kept = await keptStamp(organizationId, number, by, margin);
      if (kept !== undefined) return kept;
    }
    state = await gateState(organizationId, number);
    if (!state) return undefined; // the number is gone: nothing to pace
  }
}

/**
 * After the gate's write: the request leaves now, so the stamp must not be earlier. A write that took longer than its
 * allowance moves the stamp to now plus twice the allowance, while it is still this send's. Answers the stamp kept;
 * undefined when a later send passed meanwhile (this one was so slow that its window had passed): this one goes through
 * the gate again.
 */
async function keptStamp(
  organizationId: string,
  target: PaceTarget,
  by: number,
  allowance: number,
): Promise<number | undefined> {
  while (Date.now() > by) {
    allowance *= 2;
    const later = Date.now() + allowance;
    const moved = await updatePace(organizationId, target, { paceSentBy: later }, where.equals("paceSentBy", by));
    if (!moved) return undefined;
    by = later;
  }
  return by;
}

/** When a send behind `handOver.after` stops waiting for it (it passed, or it is taken for gone): undefined when it need not wait. */
function waitingFor(handOver: HandOver, state: GateState, now: number): number | undefined {
  if (handOver.after === null || state.turn >= handOver.after) return undefined;
  const gone = handOver.after + PREDECESSOR_GONE_MS;
  return now < gone ? gone : undefined;
}

async function gateState(organizationId: string, target: PaceTarget): Promise<GateState | undefined> {
  const Item = await readPace(organizationId, target, ["paceSentBy", "paceSentTurn"]);
  if (!Item) return undefined;
  return {
    sentBy: typeof Item.paceSentBy === "number" ? Item.paceSentBy : 0,
    turn: typeof Item.paceSentTurn === "number" ? Item.paceSentTurn : 0,
  };
}

function sleepUntil(at: number): Promise<void> | undefined {
  const wait = at - Date.now();
  return wait > 0 ? sleep(wait) : undefined;
}

async function reserveNow(
  organizationId: string,
  target: PaceTarget,
  nextWindow: number,
  now: number,
): Promise<number | undefined> {
  const written = await updatePace(
    organizationId,
    target,
    { paceNextAt: nextWindow },
    where.any(where.absent("paceNextAt"), where.atMost("paceNextAt", now)),
  );
  if (!written) return undefined;
  note(organizationId, target, { nextAt: nextWindow });
  return now;
}

async function reserveAfterLast(
  organizationId: string,
  target: PaceTarget,
  interval: number,
  now: number,
): Promise<number | undefined> {
  const written = await updatePace(
    organizationId,
    target,
    { paceNextAt: computed.add(interval) },
    where.after("paceNextAt", now),
  );
  const next = written?.Attributes?.paceNextAt;
  if (typeof next !== "number") return undefined;
  note(organizationId, target, { nextAt: next });
  return next - interval;
}

/** When this instance last marked each laned number used from a lane other than 0 (`markLaneUsed`). */
const markedUsed = new Map<string, number>();

/**
 * After the carrier request of a send on a lane other than 0 (whose gate wrote the lane's item, not the number's): the
 * number's `lastUsedAt` (sender choice's least recently used, `GET /phone-numbers`), at most once a second per
 * instance, never moved back. Without it, a short code's sends (nine lanes in ten) left it looking unused.
 */
export async function markLaneUsed(organizationId: string, number: PacedNumber, now = Date.now()): Promise<void> {
  if (!number.lane || now - (markedUsed.get(number.id) ?? 0) < 1_000) return;
  markedUsed.set(number.id, now);
  const at = new Date(now).toISOString();
  await updatePace(
    organizationId,
    { id: number.id },
    { lastUsedAt: at },
    where.any(where.absentOrNull("lastUsedAt"), where.before("lastUsedAt", at)),
  );
}

/** How long a lane's item is kept after its last write (TTL): a deleted number's lanes go by themselves. */
const LANE_KEPT_SECONDS = 7 * 24 * 3600;

/**
 * One conditional write of a number's pacing state, on its item or its lane's (undefined when its condition failed,
 * or the number is gone); answers the new value. A lane's item is made by its first write.
 */
function updatePace(
  organizationId: string,
  target: PaceTarget,
  changes: Record<string, unknown>,
  condition: Condition,
  returnValues: "UPDATED_NEW" | "UPDATED_OLD" = "UPDATED_NEW",
) {
  const update = target.lane
    ? PhoneNumberLaneEntity.update(
        { organizationId, id: target.id, lane: target.lane },
        {
          ...changes,
          entity: PhoneNumberLaneEntity.name,
          expiresAt: Math.floor(Date.now() / 1000) + LANE_KEPT_SECONDS,
        },
        { condition },
      )
    : PhoneNumberEntity.update({ organizationId, id: target.id }, changes, {
        condition: where.all(where.stored(), condition),
      });
  return conditionally(table.update({ ...update, ReturnValues: returnValues }));
}

/**
 * A consistent read of some pacing attributes, from the number's item or its lane's: undefined when the number is
 * gone; a lane not written yet holds nothing.
 */
async function readPace(
  organizationId: string,
  target: PaceTarget,
  attributes: string[],
): Promise<Record<string, unknown> | undefined> {
  if (!target.lane) return PhoneNumberEntity.get({ organizationId, id: target.id }, { consistent: true, attributes });
  const lane = { organizationId, id: target.id, lane: target.lane };
  return (await PhoneNumberLaneEntity.get(lane, { consistent: true, attributes })) ?? {};
}
