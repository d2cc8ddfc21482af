import * as Billing from "#core/billing/index";
import {
  messageCost,
  TransactionConditionFailed,
  type BillingOutcome,
  type PriceList,
  type StoredReservation,
  type TransactItem,
} from "#core/billing/index";
import { ProviderMessageEntity } from "#core/db/entities/messaging";
import { where, type Condition } from "#core/db/expression";
import { combinedRead, readTogether, type PlannedRead } from "#core/db/items";
import { Transaction } from "#core/db/transact";
import type { Actor } from "#core/auth/actor";
import type { Message } from "#core/messaging/model";
import * as NumberHealth from "#core/messaging/number-health";
import "#core/messaging/queue";
import {
  changeMessage,
  HOLD,
  messageFieldsUpdate,
  messageUpdate,
  messageWithHoldRead,
  newMessagePut,
  readMessage,
  toMessage,
  type Due,
  type HoldChange,
  type MessageChange,
} from "#core/messaging/store";
import * as MessagingEvents from "#core/messaging/timeline";
import { messageEventInput, type MessagingEventType } from "#core/messaging/timeline";
import { nowIso } from "#core/shared/ids";
import { MESSAGE_STATUSES, messageLifecycle, type MessageStatus } from "#core/shared/status";

/**
 * A message's life after it is accepted, in one place: every status it enters
 * is written together with its event (one transaction: a crash keeps both or
 * neither), and the one way a message ends, `finish`, also settles or releases
 * its hold in that transaction and then tells automations and number health.
 * Storage (the conditional update, the due entry) lives in store.ts; what moves
 * a message (the outbound pipeline, carrier callbacks, the sweep) calls this.
 */

/** The part of a lifecycle transaction that writes the message itself (its condition: the status it moves from). */
const MESSAGE = "message";

/** A Pending or Queued message the queue should have picked up is looked at again after this long. */
export const DISPATCH_GRACE_MS = 5 * 60_000;

/** The event type recorded when a message enters a status. */
export const eventTypeOfStatus: Record<MessageStatus, MessagingEventType> = {
  Pending: "MessageAccepted",
  Scheduled: "MessageScheduled",
  Queued: "MessageQueued",
  Sending: "MessageSending",
  Sent: "MessageSent",
  Unknown: "MessageUnknown",
  Delivered: "MessageDelivered",
  Undelivered: "MessageUndelivered",
  Failed: "MessageFailed",
  Blocked: "MessageBlocked",
  Canceled: "MessageCanceled",
  Received: "MessageReceived",
};

/**
 * The event a change records: by default the one of the status it enters; `at`, its time, when the write records the
 * status's own time (a Queued message's `queuedAt`).
 */
export type StatusEvent = { type?: MessagingEventType; actor?: Actor; description?: string; at?: string };

/** A change that ends a message (or, for Unknown, settles its hold while a late receipt may still come). */
export type Ending = MessageChange & { set: { status: MessageStatus } };

/** Statuses that are billed: the carrier took the message (Twilio bills undelivered ones too). */
const CHARGED = new Set<Message["status"]>(["Delivered", "Undelivered", "Unknown", "Sent"]);

/**
 * Stores a new message (outbound Pending with its due entry, or inbound Received) with the event of its first
 * status, in one transaction; `alsoWrite` (an inbound message's provider-id claim; an API send's conversation
 * summary and Idempotency-Key answer) must succeed in it too. False when a condition failed (the message, the claim
 * or the key existed already).
 */
export async function create(
  organizationId: string,
  message: Message,
  due: NonNullable<Due> | null,
  event: StatusEvent = {},
  alsoWrite?: TransactItem | readonly TransactItem[],
): Promise<boolean> {
  const transaction = new Transaction();
  for (const write of [alsoWrite ?? []].flat()) transaction.include("alsoWrite", write);
  transaction.put(MESSAGE, newMessagePut(organizationId, message, due));
  MessagingEvents.item(organizationId, eventInput(message, event), transaction);
  try {
    await Billing.commit(transaction);
  } catch (error) {
    if (error instanceof TransactionConditionFailed) return false;
    throw error;
  }
  return true;
}

/**
 * Moves a message that is still in one of `change.from` to another status that does not end it (Scheduled, Queued,
 * Sending, Sent, a retry), its event written in the same transaction. The changed message, or undefined when it
 * had moved on. A change of fields alone (no new status) records no event: use `changeMessage` for it.
 */
export async function move(
  organizationId: string,
  message: Message,
  change: MessageChange & { set: { status?: MessageStatus } },
  event: StatusEvent = {},
  via?: PassedThrough,
): Promise<Message | undefined> {
  const status = (change.set.status ?? message.status) as MessageStatus;
  if (messageLifecycle.isFinal(status) || status === "Unknown")
    throw new Error(`A move cannot end a message (${status}): finish it.`);
  const transaction = new Transaction();
  let from = message;
  let write: MessageChange = change;
  if (via) {
    // The status passed through, in the same write: its event first, at its own time, from the message as it was there.
    from = applied(message, via.change);
    MessagingEvents.item(organizationId, { ...eventInput(from, {}), createdAt: via.at }, transaction);
    write = { ...change, set: { ...via.change.set, ...change.set } };
  }
  const next = applied(from, change);
  transaction.update(MESSAGE, messageUpdate(organizationId, message.id, write));
  const recorded = eventInput(next, event);
  const at = via ? via.next : event.at;
  MessagingEvents.item(organizationId, at ? { ...recorded, createdAt: at } : recorded, transaction);
  try {
    await Billing.commit(transaction);
  } catch (error) {
    // The message was no longer in `change.from`: someone else moved it first.
    if (error instanceof TransactionConditionFailed && error.failed(MESSAGE)) return undefined;
    throw error;
  }
  return next;
}

/**
 * The claim before a hand-off (Queued → Sending, with its event), taken after the hold was: when it fails because
 * the message ended meanwhile (canceled, blocked), that ending may have been written before the hold existed, so
 * the hold is settled from the final status (idempotent). A message still in flight (claimed by a concurrent
 * consumer, requeued for a retry) keeps the hold: it is keyed by the message id, so its next dispatch reuses it.
 */
export async function claim(
  organizationId: string,
  message: Message,
  change: MessageChange & { set: { status: "Sending"; sendingStartedAt: string } },
  queued?: MessageChange & { set: { status: "Queued"; queuedAt: string } },
): Promise<Message | undefined> {
  // `queued`: a Pending message goes through Queued in the same write (issue 27, h40), each with its event.
  const via = queued && { change: queued, at: queued.set.queuedAt, next: change.set.sendingStartedAt };
  const claimed = await move(organizationId, message, change, {}, via);
  if (claimed) return claimed;
  await settleIfEnded(organizationId, message.id);
  return undefined;
}

/**
 * After a write that lost to another (the message moved on) made by an invocation that took the message's hold:
 * when the message has ended meanwhile, that ending may have been written before the hold existed, so the hold is
 * settled from the final status (idempotent).
 */
export async function settleIfEnded(organizationId: string, messageId: string): Promise<void> {
  const current = await readMessage(organizationId, messageId);
  if (current && settles(current.status)) await settle(organizationId, current);
}

/**
 * The one way a message ends: its final status (or Unknown), the settlement of its hold (charged when the carrier
 * took it, released otherwise), its `billingStatus` and its event are ONE transaction, so a crash can never leave a
 * final message holding money, a charge on a message that is not final, or a final status without its event. Once
 * committed, number health counts the outcome and a Failed or Undelivered message triggers automations.
 * `message` is the caller's read (its id, channel, segments and recipient never change). Undefined when the message
 * was no longer in one of `ending.from` (someone else moved it first).
 */
export async function finish(
  organizationId: string,
  message: Message,
  ending: Ending,
  event: StatusEvent = {},
  read?: SettlementRead,
): Promise<{ message: Message; billed: BillingOutcome | undefined } | undefined> {
  if (!settles(ending.set.status)) throw new Error(`A message cannot end ${ending.set.status}: move it.`);
  // The caller's read (taken with the message's) serves the first plan only: a retry means the hold changed.
  let planFrom = read;
  for (let attempt = 0; attempt < 5; attempt++) {
    const { items, outcome, hold } = await settlementPlan(
      organizationId,
      { ...message, status: ending.set.status },
      planFrom,
    );
    planFrom = undefined;
    const billed = items.length > 0 ? outcome : undefined;
    const set = billed
      ? { ...ending.set, billingStatus: billed.billingStatus, billableAmount: Number(billed.billableAmount) }
      : ending.set;
    const change = {
      ...ending,
      set,
      remove: [...(ending.remove ?? []), ...(hold.remove ?? [])],
      condition: where.all(ending.condition, hold.condition),
    };
    // The settlement's writes keep their names ("reservation", "wallet", …): only the message's refusal ends here.
    const transaction = new Transaction()
      .update(MESSAGE, messageUpdate(organizationId, message.id, change))
      .adopt(...items);
    MessagingEvents.item(organizationId, eventInput({ ...message, ...set } as Message, event), transaction);
    try {
      await Billing.commit(transaction);
    } catch (error) {
      if (!(error instanceof TransactionConditionFailed)) throw error;
      if (error.failed(MESSAGE)) {
        // Moved on (someone else ended it first), unless what failed is the hold on its item: taken since the plan
        // (a send's hold after the caller's read), or closed by an ending that came first. Planned again from a
        // fresh read while the message is still where the ending may take it from.
        planFrom = (await readTogether([settlementRead(organizationId, message.id)]))[0];
        const stillThere = planFrom.message && ending.from.includes(planFrom.message.status);
        if (!stillThere || Boolean(planFrom.reservation?.onOwner) === Boolean(hold.remove)) return undefined;
      }
      continue; // the hold changed meanwhile (settled, released, or taken on the message): plan again
    }
    const ended = await endedMessage(organizationId, applied(message, change));
    await afterEnding(organizationId, ended);
    return { message: ended, billed };
  }
  throw new Error(`The hold of message ${message.id} kept changing while it was being settled.`);
}

/**
 * A carrier's receipt (its status callback, or its answer when the sweep asked) through the ranked lifecycle: only
 * a message already handed to the carrier moves, never backwards; a final status ends it (`finish`). `claim` (the
 * sweep's) must hold in that same conditional write. `read`: the settlement's read, when the caller took it with the
 * message's (`settlementRead`). The changed message, or undefined when nothing changed.
 */
export async function applyReceipt(
  organizationId: string,
  message: Message,
  receipt: { status: MessageStatus; providerStatus: string; errorCode?: string },
  claim?: { condition: Condition },
  read?: SettlementRead,
): Promise<Message | undefined> {
  const next = receipt.status;
  const from = messageLifecycle
    .acceptedFrom(next)
    .filter((status) => status === "Sending" || status === "Sent" || status === "Unknown");
  if (from.length === 0) return undefined;
  const timestampField = messageLifecycle.timestampField(next);
  const change = {
    from,
    ...claim,
    set: {
      status: next,
      providerStatus: receipt.providerStatus,
      ...(timestampField ? { [timestampField]: nowIso() } : {}),
      ...(receipt.errorCode
        ? {
            errorCode: receipt.errorCode,
            statusReason: `Provider reported ${receipt.providerStatus} (${receipt.errorCode}).`,
          }
        : {}),
    },
  };
  if (messageLifecycle.isFinal(next))
    return (await finish(organizationId, message, { ...change, due: null }, {}, read))?.message;
  return move(organizationId, message, change);
}

/**
 * The hold sweeper's net: settles the hold of a message that already ended (its `finish` settled it unless
 * something went wrong) exactly as `finish` would have; repeating it changes nothing. The outcome when this call
 * settled it.
 */
export async function settleHoldOfEnded(organizationId: string, message: Message): Promise<BillingOutcome | undefined> {
  if (!settles(message.status)) return undefined;
  return settle(organizationId, message);
}

/** Final statuses, and Unknown: not final (a late receipt may still replace it) but where the hold is settled (charged). */
function settles(status: MessageStatus): boolean {
  return messageLifecycle.isFinal(status) || status === "Unknown";
}

/**
 * A message `finish` just ended, from the caller's read with the change applied (no read back): the write guaranteed
 * only its status, so when number health would count it but the read lacked the carrier's id or the sender (stored
 * after the read, by the send racing a fast callback), the stored message is read after all.
 */
async function endedMessage(organizationId: string, ended: Message): Promise<Message> {
  const counted = ended.status === "Delivered" || ended.status === "Undelivered" || ended.status === "Failed";
  if (ended.direction !== "Outbound" || !counted || (ended.providerMessageId && ended.fromPhoneNumberId)) return ended;
  return (await readMessage(organizationId, ended.id)) ?? ended;
}

/** The message as `change` leaves it (the conditional write guarantees the status it started from). */
function applied(message: Message, change: MessageChange): Message {
  const next = { ...message, ...change.set, modifiedAt: nowIso() } as Record<string, unknown>;
  for (const field of change.remove ?? []) delete next[field];
  return toMessage(next);
}

/**
 * A status a move passes through in its own write (Queued on the way to Sending): its change, its event's time, and
 * the time of the event of the status the move ends in.
 */
type PassedThrough = { change: MessageChange; at: string; next: string };

function eventInput(message: Message, event: StatusEvent) {
  return messageEventInput(message, event.type ?? eventTypeOfStatus[message.status], event.actor, event.description);
}

/**
 * What follows a committed ending: number health counts it. Automations hear of a Failed or Undelivered message from
 * its committed event (core/automations/runs/trigger-outbox), not from here: a crash after the commit loses nothing.
 */
async function afterEnding(organizationId: string, message: Message): Promise<void> {
  await NumberHealth.recordOutcome(organizationId, message);
}

/** Whether a receipt of `status` ends a message charging its hold (what `settlementRead` is read for). */
export function endsCharged(status: MessageStatus): boolean {
  return messageLifecycle.isFinal(status) && CHARGED.has(status);
}

/**
 * What settling a message's hold reads: the message, the prices and the hold (on the message's item, or the
 * Reservation item of a message held before holds were kept there).
 */
export type SettlementRead = {
  message: Message | undefined;
  prices: PriceList;
  reservation: StoredReservation | undefined;
};

/**
 * The message with what settling its hold reads, in one consistent BatchGetItem (a carrier's final receipt reads them
 * at once, issue 27): the same read `finish` would take right after.
 */
export function settlementRead(organizationId: string, messageId: string): PlannedRead<SettlementRead> {
  // The price list's copy for this message: the one its hold was priced from (core/db/copies.ts).
  const read = combinedRead([
    messageWithHoldRead(organizationId, messageId),
    Billing.pricesRead(organizationId, messageId),
    Billing.reservationRead(organizationId, messageId),
  ]);
  return {
    keys: read.keys,
    from: (items) => {
      const [stored, prices, reservation] = read.from(items);
      return { message: stored?.message, prices, reservation: stored?.hold ?? reservation };
    },
  };
}

/**
 * The writes that settle (charged statuses) or release (the others) the hold of a message in its final `status`,
 * and what the ending's own write of the message does to a hold on its item (`HoldChange`).
 */
async function settlementPlan(
  organizationId: string,
  message: Message,
  read?: SettlementRead,
): Promise<{ items: TransactItem[]; outcome: BillingOutcome; hold: HoldChange }> {
  if (message.direction !== "Outbound")
    return { items: [], outcome: { billingStatus: "NotBillable", billableAmount: "0.0000" }, hold: {} };
  // The message's hold and the prices in one read (or the caller's, taken with the message).
  const { prices, reservation } = read ?? (await readTogether([settlementRead(organizationId, message.id)]))[0];
  const hold: HoldChange = reservation?.onOwner
    ? { remove: [HOLD], condition: where.exists(HOLD) }
    : { condition: where.absent(HOLD) };
  if (!CHARGED.has(message.status))
    return { ...(await Billing.releaseItems(organizationId, message.id, { reservation })), hold };
  const kind = message.channel === "Mms" ? "mms" : "sms";
  const settlement = await Billing.settlement({
    read: { reservation },
    organizationId,
    reservationId: message.id,
    relatedEntityId: message.id,
    amount: messageCost(prices, { kind, segments: message.segments }).amount,
    currency: prices.currency,
    reason: kind === "mms" ? "MmsMessage" : "SmsSegments",
    description: `${kind === "mms" ? "MMS" : `SMS, ${message.segments} segment(s)`} to ${message.toPhoneNumber}`,
    quantity: kind === "mms" ? 1 : message.segments,
  });
  return { ...settlement, hold };
}

/** Settles the hold of a message already in its settling status, with its `billingStatus`/`billableAmount`; a no-op when done before. */
async function settle(organizationId: string, message: Message): Promise<BillingOutcome | undefined> {
  const { items, outcome, hold } = await settlementPlan(organizationId, message);
  if (items.length === 0) return undefined;
  const transaction = new Transaction()
    .adopt(...items)
    .update(
      MESSAGE,
      messageFieldsUpdate(
        organizationId,
        message.id,
        { billingStatus: outcome.billingStatus, billableAmount: Number(outcome.billableAmount) },
        hold,
      ),
    );
  try {
    await Billing.commit(transaction);
  } catch (error) {
    // A concurrent duplicate callback closed the hold first (its Reservation item, or the one on the message): nothing
    // left to do.
    if (error instanceof TransactionConditionFailed && (error.failed("reservation") || error.failed(MESSAGE)))
      return undefined;
    throw error;
  }
  return outcome;
}

/**
 * The conditional put that claims an inbound message by its provider id (a redelivered webhook finds it and stores
 * nothing twice). Outbound messages have no pointer: their status callbacks carry our message id in their URL.
 */
export function inboundClaimPut(
  organizationId: string,
  provider: string,
  providerMessageId: string,
  messageId: string,
) {
  return ProviderMessageEntity.putAt(
    { organizationId, provider, providerMessageId },
    { messageId },
    { condition: where.new() },
  );
}

/**
 * Records the carrier's id of a message it took: one write (issue 27). No provider-id pointer is kept for it: both
 * carriers post its receipts to the per-message URL we gave, which names the message; a receipt that came some other
 * way is not needed, as the receipt check asks the carrier itself (core/messaging/receipts.ts).
 */
export async function recordProviderId(
  organizationId: string,
  messageId: string,
  providerMessageId: string,
): Promise<void> {
  await changeMessage(organizationId, messageId, { from: MESSAGE_STATUSES, set: { providerMessageId } });
}
