import { dueWorkShards } from "#core/db/due";
import { MessageEntity } from "#core/db/entities/messaging";
import { where, type Condition } from "#core/db/expression";
import { withoutKeys } from "#core/db/indexes";
import { conditionally, oneItem, table, type PlannedRead } from "#core/db/items";
import { messageLifecycle, type MessageStatus } from "#core/shared/status";
import type { Message } from "#core/messaging/model";
import type { Slot } from "#core/messaging/pacing";
import type { StoredReservation } from "#core/billing/schemas";

/**
 * Storage of messages: every change is one conditional UpdateItem that names
 * the statuses it may start from, so concurrent consumers, webhooks and the
 * sweeper can never move a message backwards or out of a final status.
 *
 * Each waiting message carries exactly one entry in the due index (MessageEntity `due`), saying
 * when it must be looked at again and why; a final message carries none.
 */

/** Why the sweeper looks at a message: release a scheduled send, re-dispatch a stuck one, or expire a receipt wait. */
export type DueKind = "Release" | "Dispatch" | "ReceiptTimeout";
export type Due = { at: string; kind: DueKind } | null;

export const dueShards = dueWorkShards;

/** A message's entry in the due index and why it is due (`dueKind`, beside it), for a put of the message. */
export function dueAttributes(organizationId: string, messageId: string, due: NonNullable<Due>) {
  return { ...MessageEntity.entryIn("due", { organizationId, id: messageId, dueAt: due.at }), dueKind: due.kind };
}

export async function readMessage(organizationId: string, messageId: string): Promise<Message | undefined> {
  return (await readMessageToSend(organizationId, messageId))?.message;
}

/**
 * A message with the send slot it holds while it waits in the queue for it (`heldSlot`, set by pacing's
 * `waitInQueue`), for the consumer: a copy of the message published without the slot (the sweep's republish, after
 * a backlog made the delayed copy late) goes in that slot instead of reserving another one. Each extra reservation
 * would be a slot the number never uses, pushing every later send of the number back by one interval.
 */
export async function readMessageToSend(
  organizationId: string,
  messageId: string,
): Promise<{ message: Message; heldSlot?: Slot } | undefined> {
  return toSend(await MessageEntity.get({ organizationId, id: messageId }, { consistent: true }));
}

/** `readMessageToSend`'s read, for a batch with other reads (`readTogether`, consistent like it). */
export const messageToSendRead = (
  organizationId: string,
  messageId: string,
): PlannedRead<{ message: Message; heldSlot?: Slot } | undefined> =>
  oneItem(MessageEntity.key({ organizationId, id: messageId }), toSend);

function toSend(Item: Record<string, unknown> | undefined): { message: Message; heldSlot?: Slot } | undefined {
  if (!Item) return undefined;
  return { message: toMessage(Item), ...(Item.heldSlot ? { heldSlot: Item.heldSlot as Slot } : {}) };
}

/** `readMessage`'s read, for a batch with other reads (`readTogether`, consistent like it). */
export const messageRead = (organizationId: string, messageId: string): PlannedRead<Message | undefined> =>
  oneItem(MessageEntity.key({ organizationId, id: messageId }), (item) => (item ? toMessage(item) : undefined));

/** The provider ids of a message's attempts refused for throttling (none when it had none). */
export async function refusedAttemptsOf(organizationId: string, messageId: string): Promise<string[]> {
  const Item = await MessageEntity.get(
    { organizationId, id: messageId },
    { consistent: true, attributes: ["refusedAttempts"] },
  );
  return Array.isArray(Item?.refusedAttempts) ? (Item.refusedAttempts as string[]) : [];
}

/**
 * The condition that a change applies to the attempt `providerMessageId` names: the message's current one (or, before
 * its id is stored, any attempt but one refused for throttling). A carrier's callback names the attempt it is about.
 * No id is absent since issue 27 (the message item stores no nulls), null before it: both are "not stored yet".
 */
export function currentAttempt(providerMessageId: string): { condition: Condition } {
  return {
    condition: where.all(
      where.any(where.absentOrNull("providerMessageId"), where.equals("providerMessageId", providerMessageId)),
      where.not(where.contains("refusedAttempts", providerMessageId)),
    ),
  };
}

/**
 * The message's hold on the wallet (issue 27), on its own item rather than a Reservation item of its own: `h`, the
 * units held and the wallet shard they came from, while it is open. The write that ends the message settles or
 * releases it and removes it, in the same update (so an ended message never holds money, and its settlement writes
 * one item less). A message held before this version has a Reservation item instead, settled as before.
 */
export const HOLD = "h";

/** The open hold of a stored message item, as billing settles it; undefined when it holds none on its item. */
export function holdOnMessage(item: Record<string, unknown> | undefined): StoredReservation | undefined {
  const hold = item?.[HOLD] as { u: number; s?: number } | undefined;
  if (!item || !hold) return undefined;
  return {
    reservationId: String(item.id),
    state: "Reserved",
    amountUnits: Number(hold.u),
    relatedEntityType: "Message",
    ...(hold.s !== undefined ? { walletShard: Number(hold.s) } : {}),
    onOwner: true,
  };
}

/** The open hold on a message's item (consistent), for a hold that could not be taken because one exists. */
export async function storedHoldOnMessage(
  organizationId: string,
  messageId: string,
): Promise<StoredReservation | undefined> {
  return holdOnMessage(
    await MessageEntity.get({ organizationId, id: messageId }, { consistent: true, attributes: ["id", HOLD] }),
  );
}

/** The statuses of a message not handed to the provider yet: the ones its hold can be taken in. */
const NOT_HANDED_OVER: MessageStatus[] = ["Pending", "Scheduled", "Queued"];

/**
 * The update that records a message's hold (billing's `HoldOnOwner.record`): only while it holds none, and only a
 * message not handed over or ended yet (a hold taken after its ending would never be settled). A Scheduled one too:
 * when its time comes it is held and claimed from Scheduled in one dispatch.
 */
export function messageHoldUpdate(
  organizationId: string,
  messageId: string,
  hold: { amountUnits: number; walletShard?: number },
) {
  return MessageEntity.update(
    { organizationId, id: messageId },
    { [HOLD]: { u: hold.amountUnits, ...(hold.walletShard !== undefined ? { s: hold.walletShard } : {}) } },
    { condition: where.all(where.stored(), where.absent(HOLD), where.oneOf("status", NOT_HANDED_OVER)) },
  );
}

/** The condition a sweep's write of a due message holds: its due entry is still the one the sweep read (`seen`). */
export function dueEntryClaim(seen: string): { condition: Condition } {
  return { condition: MessageEntity.indexedAt("due", seen) };
}

export interface MessageChange {
  /** The statuses the message may be in for the change to apply. */
  from: readonly MessageStatus[];
  /**
   * Stored but never shown: `sweepAttempts` (how many times the sweep republished it), `waitingBehind` (the id of
   * the conversation's earlier message a Queued one waits for, core/messaging/conversation-order.ts) and `heldSlot`
   * (the send slot a Queued one waits for, core/messaging/pacing.ts).
   */
  set: Partial<Record<keyof Message | InternalField, unknown>>;
  remove?: (keyof Message | InternalField)[];
  /** The due entry after the change (undefined: leave it as it is). */
  due?: Due;
  /** An extra condition (`where.equals("retryCount", 2)`). */
  condition?: Condition;
}

/** Applies a change if the message is still in one of `from`; undefined when it was not. */
export async function changeMessage(
  organizationId: string,
  messageId: string,
  change: MessageChange,
): Promise<Message | undefined> {
  const result = await conditionally(
    table.update({ ...messageUpdate(organizationId, messageId, change), ReturnValues: "ALL_NEW" }),
  );
  return result ? toMessage(result.Attributes!) : undefined;
}

/**
 * The conditional UpdateItem of a change, to send alone (changeMessage) or inside a transaction with billing writes.
 * A change that ends the message (a final status, or Unknown) without closing its hold holds only while it has none
 * on its item: the ending that settles it is `MessageLifecycle.finish`, and no other write can leave an ended message
 * holding money.
 */
export function messageUpdate(organizationId: string, messageId: string, change: MessageChange) {
  const set = { ...change.set, modifiedAt: new Date().toISOString() } as Record<string, unknown>;
  if (change.due) set.dueKind = change.due.kind;
  const fields = storedChange(set, change.remove ?? []);
  const status = change.set.status as MessageStatus | undefined;
  const ends = status !== undefined && (messageLifecycle.isFinal(status) || status === "Unknown");
  const unheld = ends && !change.remove?.includes(HOLD) ? where.absent(HOLD) : undefined;
  return MessageEntity.update({ organizationId, id: messageId }, fields.set, {
    condition: where.all(where.stored(), where.oneOf("status", change.from), change.condition, unheld),
    remove: [...fields.remove, ...(change.due === null ? ["dueKind"] : [])],
    ...(change.due ? { enter: { due: { dueAt: change.due.at } } } : {}),
    ...(change.due === null ? { leave: ["due"] as const } : {}),
  });
}

/** An update of some of a stored message's fields alone, whatever its status (no event, no `modifiedAt`). */
export function messageFieldsUpdate(
  organizationId: string,
  messageId: string,
  fields: Partial<Record<keyof Message, unknown>>,
  also: HoldChange = {},
) {
  const stored = storedChange(fields);
  return MessageEntity.update({ organizationId, id: messageId }, stored.set, {
    condition: where.all(where.stored(), also.condition),
    remove: [...stored.remove, ...(also.remove ?? [])],
  });
}

/**
 * What a message's ending does to its own hold (`HOLD`), with the change that settles it: closes it (removes it, on
 * condition it is still there), or checks it has none (a hold taken since the settlement was planned fails the write,
 * and the ending is planned again with it).
 */
export type HoldChange = { remove?: (typeof HOLD)[]; condition?: Condition };

/** A message and its hold (on its item) in one consistent read, for a batch with other reads. */
export const messageWithHoldRead = (
  organizationId: string,
  messageId: string,
): PlannedRead<{ message: Message; hold: StoredReservation | undefined } | undefined> =>
  oneItem(MessageEntity.key({ organizationId, id: messageId }), (item) =>
    item ? { message: toMessage(item), hold: holdOnMessage(item) } : undefined,
  );

/**
 * A change of a message's fields as stored: each under its stored name (`storedNames`), a field that reads null when
 * absent emptied by removing it (issue 27: the item stays small), and a renamed field's old name removed wherever the
 * change names it, so an item stored before (which holds the old name) never keeps a stale value behind the new one.
 */
export function storedChange(
  set: Record<string, unknown>,
  remove: readonly string[] = [],
): { set: Record<string, unknown>; remove: string[] } {
  const entries = Object.entries(set).filter(([, value]) => value !== undefined);
  const emptied = entries
    .filter(([field, value]) => value === null && nullWhenAbsent.has(field))
    .map(([field]) => field);
  const kept = entries.filter(([field]) => !emptied.includes(field));
  const renamedSet = kept.flatMap(([field]) => (field in storedNames ? [field] : []));
  return {
    set: Object.fromEntries(kept.map(([field, value]) => [storedName(field), value])),
    remove: [...new Set([...[...remove, ...emptied].flatMap(bothNames), ...renamedSet])],
  };
}

/**
 * `refusedAttempts`: the provider ids of the message's earlier attempts the carrier refused for throttling
 * (`throttledAtCarrier`, core/messaging/outbound): a late callback of one never applies to a later attempt, and the hand-off
 * recovery never adopts one as the later attempt's.
 */
type InternalField = "sweepAttempts" | "waitingBehind" | "heldSlot" | "refusedAttempts" | typeof HOLD;

/** Stored beside a message's fields, never shown: its internal fields, its entity and why it is due. */
const internal = new Set([
  HOLD,
  "sweepAttempts",
  "waitingBehind",
  "heldSlot",
  "refusedAttempts",
  "entity",
  "dueKind",
  "organizationId",
]);

/**
 * The fields a new message starts null (`newMessage`), stored only while they hold a value (issue 27): most of a
 * message's ~50 fields are null for most of its life, and every write of the item is billed by its whole size (two
 * units per started KB in a transaction). Read back null when absent, so a message reads the same whether it was
 * stored with its nulls (before issue 27) or without them. Other nullable fields (`consentBasis`, `complianceChecks`,
 * `failedOverFrom`) are stored as given: absent and null differ in their answers. `assignedUserId` too: messages
 * stored before they carried their owner are nobody's.
 */
export const nullWhenAbsent: ReadonlySet<string> = new Set([
  "leadId",
  "assignedUserId",
  "statusReason",
  "fromPhoneNumberId",
  "fromPhoneNumber",
  "selectionReason",
  "scheduledFor",
  "scheduledReason",
  "complianceAction",
  "billingStatus",
  "billableAmount",
  "errorCode",
  "nextRetryAt",
  "provider",
  "providerMessageId",
  "providerStatus",
  "cancelReason",
  "campaignId",
  "purpose",
  "queuedAt",
  "sendingStartedAt",
  "sentAt",
  "deliveredAt",
  "undeliverableAt",
  "failedAt",
  "blockedAt",
  "canceledAt",
  "receivedAt",
  "modifiedAt",
  "actorUserId",
  "actorDisplayName",
  "actorEmail",
] satisfies (keyof Message)[]);

/**
 * What a new message holds unless its sender asked otherwise, likewise left out of a new item and read back when
 * absent (no condition or filter names them). `retryCount` is always stored: the claim's condition compares it.
 */
const unlessAsked = { wasManuallyOverridden: false, quietHoursOverridden: false } as const;

/**
 * A field a new message's item leaves out: null where absent reads null, or the usual value. `media` stays, empty or
 * not. (Code from before issue 27 cannot read the items this code stores anyway, since the eighth pass stores longer
 * fields under short names: the issue-27 release is forward-only, docs/decisions.md.)
 */
const leftOut = (field: string, value: unknown) =>
  (value === null && nullWhenAbsent.has(field)) ||
  (field in unlessAsked && value === unlessAsked[field as keyof typeof unlessAsked]);

/**
 * Stored names of a message's longer fields (issue 27, eighth pass): every write of the item is billed by its whole
 * size, attribute names included, and a message holding its carrier's id passed 1 KB by ~60–140 bytes (the
 * provider-id write and the Sent transition then cost twice). Only fields no condition, projection, filter or index
 * names (those keep their names: `status`, `retryCount`, `provider`, `providerMessageId`, `nextRetryAt`, `direction`,
 * `conversationId`, `id`, `leadId`, `body`, `media`). Items stored before hold the long names; `toMessage` reads
 * both, the stored name first, and every change removes the long name of a field it writes.
 */
export const storedNames: Readonly<Partial<Record<keyof Message, string>>> = {
  assignedUserId: "au",
  statusReason: "sr",
  fromPhoneNumberId: "fi",
  fromPhoneNumber: "fn",
  toPhoneNumber: "tn",
  selectionReason: "sl",
  wasManuallyOverridden: "mo",
  quietHoursOverridden: "qo",
  scheduledFor: "sf",
  scheduledReason: "sd",
  complianceAction: "ca",
  complianceChecks: "cc",
  billingStatus: "bs",
  billableAmount: "ba",
  errorCode: "ec",
  failedOverFrom: "fo",
  providerStatus: "ps",
  cancelReason: "cr",
  campaignId: "cp",
  queuedAt: "qa",
  sendingStartedAt: "ga",
  sentAt: "sa",
  deliveredAt: "da",
  undeliverableAt: "ua",
  failedAt: "fa",
  blockedAt: "ka",
  canceledAt: "xa",
  receivedAt: "ra",
  createdAt: "ct",
  modifiedAt: "mt",
  createdBy: "cb",
  actorUserId: "ai",
  actorDisplayName: "ad",
  actorEmail: "ae",
  consentBasis: "cn",
  encoding: "en",
  segments: "sg",
  channel: "ch",
};

const storedName = (field: string): string => storedNames[field as keyof Message] ?? field;
const bothNames = (field: string): string[] => (field in storedNames ? [field, storedName(field)] : [field]);
const fieldOfStored = new Map(Object.entries(storedNames).map(([field, stored]) => [stored, field]));

/** A new message's fields as stored (`leftOut`: read back as they were by `toMessage`; under their `storedNames`). */
export function storedFields(message: Message): { id: string } & Record<string, unknown> {
  return {
    id: message.id,
    ...Object.fromEntries(
      Object.entries(message)
        .filter(([field, value]) => !leftOut(field, value))
        .map(([field, value]) => [storedName(field), value]),
    ),
  };
}

/**
 * The put of a new message (unless one with its id exists), with its due entry when it waits: `storedFields`, and no
 * `organizationId` (issue 27: its partition key names it, no reader takes it from the item, `toMessage` never showed
 * it, and its 40 bytes kept a message in flight just over 1 KB).
 */
export function newMessagePut(organizationId: string, message: Message, due: Due) {
  return MessageEntity.putAt(
    { organizationId, id: message.id },
    { ...storedFields(message), ...(due ? dueAttributes(organizationId, message.id, due) : {}) },
    { condition: where.new() },
  );
}

const absentAsNull = Object.fromEntries([...nullWhenAbsent].map((field) => [field, null]));

/** A stored message item (of any version) as the message it holds: stored names read back, then what was left out. */
export function toMessage(item: Record<string, unknown>): Message {
  const stored = Object.entries(withoutKeys(item)).filter(([key]) => !internal.has(key));
  return {
    ...absentAsNull,
    ...unlessAsked,
    // Long names (items stored before) first: a stored name, written since, wins over a long one.
    ...Object.fromEntries(stored.filter(([key]) => !fieldOfStored.has(key))),
    ...Object.fromEntries(
      stored.flatMap(([key, value]) => (fieldOfStored.has(key) ? [[fieldOfStored.get(key)!, value]] : [])),
    ),
  } as unknown as Message;
}
