import * as v from "valibot";
import type { Actor } from "#core/auth/actor";
import { ConversationByPhoneEntity, ConversationEntity } from "#core/db/entities/messaging";
import { computed, where, type Condition } from "#core/db/expression";
import { claimKey, conditionally, oneItem, readAlone, table, type PlannedRead } from "#core/db/items";
import type { TransactItem } from "#core/db/transact";
import { NotFoundError } from "#core/errors";
import * as PhoneNumbers from "#core/messaging/phone-numbers";
import { ownerOf } from "#core/events/index";
import * as MessagingEvents from "#core/messaging/timeline";
import { newId, nowIso, timestamp, wholeNumber } from "#core/shared/ids";
import * as UnreadConversations from "#core/messaging/unread";
import * as LeadReads from "#core/leads/reads";
import type { Lead } from "#core/leads/schemas";
import { mayRead } from "#core/routing/visibility";

export const ConversationSchema = v.object({
  id: v.string(),
  /** The contact's number (E.164). */
  contactPhoneNumber: v.string(),
  leadId: v.nullable(v.string()),
  /** The sticky sender: the number last used in this conversation. */
  phoneNumberId: v.nullable(v.string()),
  phoneNumber: v.nullable(v.string()),
  unread: v.boolean(),
  unreadCount: wholeNumber,
  lastMessageAt: v.nullable(timestamp),
  lastMessagePreview: v.nullable(v.string()),
  lastDirection: v.nullable(v.string()),
  /** The lead's name as it was when the conversation met the lead (searchable; the lead page has the current one). */
  leadName: v.nullable(v.string()),
  /** Who works this conversation (null: nobody); follows its lead's assignment unless set here. */
  assignedUserId: v.nullable(v.string()),
  assignedAt: v.nullable(timestamp),
  /** How: `lead` (followed its lead's assignment), `manual` (set by someone), `claim` (an agent took it). */
  assignedBy: v.nullable(v.object({ method: v.picklist(["lead", "manual", "claim"]), userId: v.nullable(v.string()) })),
  createdAt: timestamp,
  modifiedAt: v.nullable(timestamp),
});
export type Conversation = v.InferOutput<typeof ConversationSchema>;
export type ConversationAssignedBy = NonNullable<Conversation["assignedBy"]>;

/** Body of `PUT /conversations/{id}/sender`. */
export const ReassignSenderSchema = v.strictObject({
  phoneNumberId: v.pipe(v.string(), v.minLength(1), v.maxLength(64)),
});

/**
 * The conversation of a lead or a number a warm instance sent to (`hint`). A number's conversation never
 * changes (its pointer is written once, conversations are not deleted), so a hint is only ever confirmed or ignored.
 */
const hints = new Map<string, string>();
const MAX_HINTS = 10_000;

/** Conversations: one per contact phone number within the organization. */

/** The conversation of a contact number, created on first use (race-free through its phone pointer). */
export async function ensure(
  organizationId: string,
  contactPhoneNumber: string,
  leadId: string | undefined,
  known?: Conversation | null,
): Promise<Conversation> {
  // `known`: the caller already looked the number up (null: it has none yet); undefined: look it up here.
  const existing = known !== undefined ? (known ?? undefined) : await byPhone(organizationId, contactPhoneNumber);
  if (existing) {
    if (!leadId || existing.leadId) return existing;
    return (await setLead(organizationId, existing, leadId)) ?? existing;
  }
  // A conversation met through a lead starts with the lead's name and assignee (later changes come from the
  // lead's assignment events: core/messaging/conversation-assignment.ts).
  const lead = leadId ? await LeadReads.find(organizationId, leadId) : undefined;
  const conversation: Conversation = { ...blankConversation(contactPhoneNumber, lead), leadId: leadId ?? null };
  // Two plain conditional puts, not a transaction (half the write units): the number's pointer first, naming the
  // conversation id, then the conversation. An attempt that stopped between them left a pointer without its
  // conversation: the next one stores the conversation under the id the pointer names.
  const pointer = { organizationId, contactPhoneNumber };
  let toStore = conversation;
  const claim = { entity: ConversationByPhoneEntity.name, conversationId: conversation.id };
  if (!(await claimKey(ConversationByPhoneEntity.key(pointer), claim))) {
    const Item = await ConversationByPhoneEntity.get(pointer, { consistent: true });
    const claimedId = String(Item!.conversationId);
    const winner = await find(organizationId, claimedId);
    if (winner) return winner;
    toStore = { ...conversation, id: claimedId };
  }
  // Counted from its creation (`outboundNoted`, see `dispatchRead`); a conversation stored before the count has no marker.
  const put = ConversationEntity.putAt(
    { organizationId, id: toStore.id },
    { ...toStore, outboundCounted: true, outboundNoted: 0 },
    { condition: where.new() },
  );
  if (await conditionally(table.put(put))) return toStore;
  const stored = await find(organizationId, toStore.id);
  if (!stored) throw new Error(`Conversation ${toStore.id} was refused as existing but cannot be read.`);
  return stored;
}

/**
 * A new conversation for a number that has none yet, as the writes of the transaction storing its first outbound
 * message (issue 27: the pointer's and the conversation's own puts were two calls before it): the number's pointer,
 * conditional on absence, and the conversation with that message's note already applied (a transaction cannot
 * write one item twice). Two first messages to one new number: one pointer put wins, the other transaction is
 * refused and its sender takes the conversation `ensure` finds (core/messaging/messages.ts).
 */
export function planNew(
  organizationId: string,
  contactPhoneNumber: string,
  lead: Lead | undefined,
  message: { body: string; at: string },
): { conversation: Conversation; writes: TransactItem[] } {
  const conversation: Conversation = {
    ...blankConversation(contactPhoneNumber, lead),
    lastMessageAt: message.at,
    lastMessagePreview: message.body.slice(0, 160),
    lastDirection: "Outbound",
    modifiedAt: message.at,
  };
  const pointer = ConversationByPhoneEntity.putAt(
    { organizationId, contactPhoneNumber },
    { conversationId: conversation.id },
    { condition: where.new() },
  );
  const put = ConversationEntity.putAt(
    { organizationId, id: conversation.id },
    { ...conversation, outboundCounted: true, outboundNoted: 1 },
    { condition: where.new() },
  );
  return { conversation, writes: [{ Put: pointer }, { Put: put }] };
}

/** The id of a contact number's conversation (its pointer) as a read others batch with theirs (`readTogether`). */
export const idReadByPhone = (organizationId: string, contactPhoneNumber: string): PlannedRead<string | undefined> => ({
  keys: [ConversationByPhoneEntity.key({ organizationId, contactPhoneNumber })],
  from: ([pointer]) => (pointer ? String(pointer.conversationId) : undefined),
});

/**
 * `findRead` for a dispatch, with whether the conversation has no outbound message but the one being dispatched:
 * every outbound message is stored with its conversation's note (`messageNote`, one transaction), which counts it
 * (`outboundNoted`) in a conversation counted since its creation (`outboundCounted`). A count of 1 read after that
 * message's commit is that message alone, so no earlier send can be waiting ahead of it (issue 27: the order check's
 * query is skipped). Conversations stored before the count never prove it.
 */
export const dispatchRead = (
  organizationId: string,
  conversationId: string,
): PlannedRead<{ conversation: Conversation | undefined; onlyOutbound: boolean }> =>
  oneItem(ConversationEntity.key({ organizationId, id: conversationId }), (item) => ({
    conversation: item ? toConversation(item) : undefined,
    onlyOutbound: item?.outboundCounted === true && item.outboundNoted === 1,
  }));

/** A conversation's item as a read others batch with theirs (`readTogether`); undefined when absent. */
export const readById = (organizationId: string, conversationId: string): PlannedRead<Conversation | undefined> => ({
  keys: [ConversationEntity.key({ organizationId, id: conversationId })],
  from: ([item]) => (item ? toConversation(item) : undefined),
});

/**
 * The conversation this instance last sent to for a lead or a number: a hint, read with the request's other items
 * and used only when what was read confirms it (its number is the lead's, or its number's pointer names it).
 */
export const hint = (organizationId: string, recipient: string): string | undefined =>
  hints.get(`${organizationId}#${recipient}`);

export function remember(organizationId: string, recipient: string, conversationId: string): void {
  if (hints.size >= MAX_HINTS) hints.delete(hints.keys().next().value!);
  hints.set(`${organizationId}#${recipient}`, conversationId);
}

export async function byPhone(organizationId: string, contactPhoneNumber: string): Promise<Conversation | undefined> {
  const Item = await ConversationByPhoneEntity.get({ organizationId, contactPhoneNumber }, { consistent: true });
  return Item ? find(organizationId, Item.conversationId as string) : undefined;
}

export async function find(organizationId: string, conversationId: string): Promise<Conversation | undefined> {
  return readAlone(findRead(organizationId, conversationId), { consistent: true });
}

/** `find`'s read, for a batch with other reads (`readTogether`). */
export const findRead = (organizationId: string, conversationId: string): PlannedRead<Conversation | undefined> =>
  oneItem(ConversationEntity.key({ organizationId, id: conversationId }), (item) =>
    item ? toConversation(item) : undefined,
  );

export async function fromId(actor: Actor, conversationId: string): Promise<Conversation> {
  const conversation = await find(actor.organizationId, conversationId);
  if (!conversation || !(await mayRead(actor, conversation))) throw new NotFoundError("Conversation", conversationId);
  return conversation;
}

/** `POST /conversations/{id}/read`: clears the unread flag and count (of a conversation the caller may read). */
export async function markRead(actor: Actor, conversationId: string): Promise<Conversation> {
  await fromId(actor, conversationId);
  const now = nowIso();
  const conversation = await update(
    actor.organizationId,
    conversationId,
    { unread: false, unreadCount: 0, modifiedAt: now },
    { leave: ["unread"] },
  );
  await UnreadConversations.onRead(actor.organizationId, conversationId, now);
  return conversation;
}

/** `PUT /conversations/{id}/sender`: the caller picks the sticky number; recorded as an event. */
export async function reassignSender(
  actor: Actor,
  conversationId: string,
  phoneNumberId: string,
): Promise<Conversation> {
  const current = await fromId(actor, conversationId);
  const number = await PhoneNumbers.fromId(actor, phoneNumberId);
  const updated = await setSender(actor.organizationId, conversationId, number);
  await MessagingEvents.record(actor.organizationId, {
    eventType: "ConversationSenderReassigned",
    eventCategory: "Conversation",
    description: `Sender of the conversation with ${current.contactPhoneNumber} reassigned from ${current.phoneNumber ?? "none"} to ${number.phoneNumber}.`,
    conversationId,
    ...(current.leadId ? { leadId: current.leadId } : {}),
    ...ownerOf(current),
    relatedEntityType: "Conversation",
    relatedEntityId: conversationId,
    fromPhoneNumberId: number.id,
    fromPhoneNumber: number.phoneNumber,
    toPhoneNumber: current.contactPhoneNumber,
    wasManuallyOverridden: true,
    actor,
  });
  return updated;
}

/** Makes a number the conversation's sticky sender. */
export async function setSender(
  organizationId: string,
  conversationId: string,
  number: { id: string; phoneNumber: string },
): Promise<Conversation> {
  return update(organizationId, conversationId, {
    phoneNumberId: number.id,
    phoneNumber: number.phoneNumber,
    modifiedAt: nowIso(),
  });
}

/** Records a message in the conversation's summary; `unread` marks it unread (ordinary inbound messages). */
export async function noteMessage(
  organizationId: string,
  conversationId: string,
  message: { direction: "Inbound" | "Outbound"; body: string; at: string; unread?: boolean },
): Promise<void> {
  await table.update(messageNote(organizationId, conversationId, message));
  if (message.unread === true) await UnreadConversations.onUnread(organizationId, conversationId, message.at);
}

/**
 * The write of `noteMessage` alone, for a transaction that stores the message too (`POST /messages`); the unread
 * ledger of an inbound message is not part of it.
 */
export function messageNote(
  organizationId: string,
  conversationId: string,
  message: { direction: "Inbound" | "Outbound"; body: string; at: string; unread?: boolean },
) {
  const inbound = message.unread === true;
  // An inbound message puts the conversation in the inbox; any other moves its inbox entry (if it has one) to
  // this message's time, leaving it in or out as it is.
  return ConversationEntity.update(
    { organizationId, id: conversationId },
    {
      lastMessageAt: message.at,
      lastMessagePreview: message.body.slice(0, 160),
      lastDirection: message.direction,
      modifiedAt: message.at,
      ...(message.direction === "Outbound" ? { outboundNoted: computed.increment() } : {}),
      ...(inbound ? { unread: true, unreadCount: computed.increment() } : {}),
    },
    { condition: where.stored(), ...(inbound ? { enter: { unread: {} } } : { reorder: { unread: {} } }) },
  );
}

/** A conversation with `assignmentChangedAt`, when its assignee last changed by any path: the assignment's version. */
export async function storedAssignment(organizationId: string, conversationId: string) {
  const Item = await ConversationEntity.get({ organizationId, id: conversationId }, { consistent: true });
  if (!Item) return undefined;
  return { conversation: toConversation(Item), changedAt: (Item.assignmentChangedAt as string | undefined) ?? null };
}

/** The write of a new assignee, conditioned on the assignment version read (`seen`; null: never assigned here). */
export function assigneeUpdate(
  organizationId: string,
  conversationId: string,
  change: { userId: string | null; assignedAt: string | null; by: ConversationAssignedBy | null; at: string },
  seen: string | null,
) {
  return ConversationEntity.update(
    { organizationId, id: conversationId },
    {
      assignedUserId: change.userId,
      assignedAt: change.assignedAt,
      assignedBy: change.by,
      assignmentChangedAt: change.at,
      modifiedAt: nowIso(),
    },
    {
      condition: seen
        ? where.equals("assignmentChangedAt", seen)
        : where.all(where.stored(), where.absent("assignmentChangedAt")),
    },
  );
}

/** A conversation's lead-derived fields: the lead's name and, when it has one, its assignee. */
/** A conversation with no message yet, met through `lead` if any. */
function blankConversation(contactPhoneNumber: string, lead: Lead | undefined): Conversation {
  return {
    id: newId(),
    contactPhoneNumber,
    leadId: lead?.id ?? null,
    phoneNumberId: null,
    phoneNumber: null,
    unread: false,
    unreadCount: 0,
    lastMessageAt: null,
    lastMessagePreview: null,
    lastDirection: null,
    ...fromLead(lead),
    createdAt: nowIso(),
    modifiedAt: null,
  };
}

function fromLead(lead: Lead | undefined) {
  const assigned = lead?.assignedUserId ?? null;
  return {
    leadName: lead ? leadNameOf(lead) : null,
    assignedUserId: assigned,
    assignedAt: assigned ? (lead?.assignedAt ?? null) : null,
    assignedBy: assigned ? { method: "lead" as const, userId: null } : null,
  };
}

/** The name a person reads for a lead: first and last name, else its number. */
export function leadNameOf(lead: Lead): string | null {
  return [lead.contact.firstName, lead.contact.lastName].filter(Boolean).join(" ") || null;
}

/**
 * A conversation that had no lead meets one (a text from an unknown number, then the lead arrives): it takes the
 * lead's id and name, and its assignee unless someone assigned the conversation already. Answers the conversation as
 * written, undefined when another writer linked a lead first.
 */
async function setLead(
  organizationId: string,
  existing: Conversation,
  leadId: string,
): Promise<Conversation | undefined> {
  const lead = await LeadReads.find(organizationId, leadId);
  const fields = fromLead(lead);
  const keepAssignee = existing.assignedUserId !== null;
  return changeConversation(
    organizationId,
    existing.id,
    {
      leadId,
      leadName: fields.leadName,
      ...(keepAssignee
        ? {}
        : { assignedUserId: fields.assignedUserId, assignedAt: fields.assignedAt, assignedBy: fields.assignedBy }),
    },
    { condition: where.any(where.absent("leadId"), where.equals("leadId", null)) },
  );
}

/** Changes a stored conversation (if `condition` holds too): the conversation as written, undefined when refused. */
async function changeConversation(
  organizationId: string,
  conversationId: string,
  changes: Record<string, unknown>,
  options: { condition?: Condition; leave?: readonly "unread"[] } = {},
): Promise<Conversation | undefined> {
  const result = await conditionally(
    table.update({
      ...ConversationEntity.update({ organizationId, id: conversationId }, changes, {
        ...options,
        condition: where.all(where.stored(), options.condition),
      }),
      ReturnValues: "ALL_NEW",
    }),
  );
  return result ? toConversation(result.Attributes!) : undefined;
}

/** Changes a conversation that must exist (NotFound otherwise). */
async function update(
  organizationId: string,
  conversationId: string,
  changes: Record<string, unknown>,
  options: { leave?: readonly "unread"[] } = {},
): Promise<Conversation> {
  const conversation = await changeConversation(organizationId, conversationId, changes, options);
  if (!conversation) throw new NotFoundError("Conversation", conversationId);
  return conversation;
}

export function toConversation(item: Record<string, unknown>): Conversation {
  return {
    id: item.id as string,
    contactPhoneNumber: item.contactPhoneNumber as string,
    leadId: (item.leadId as string | null) ?? null,
    phoneNumberId: (item.phoneNumberId as string | null) ?? null,
    phoneNumber: (item.phoneNumber as string | null) ?? null,
    unread: Boolean(item.unread),
    unreadCount: Number(item.unreadCount ?? 0),
    lastMessageAt: (item.lastMessageAt as string | null) ?? null,
    lastMessagePreview: (item.lastMessagePreview as string | null) ?? null,
    lastDirection: (item.lastDirection as string | null) ?? null,
    leadName: (item.leadName as string | null) ?? null,
    assignedUserId: (item.assignedUserId as string | null) ?? null,
    assignedAt: (item.assignedAt as string | null) ?? null,
    assignedBy: (item.assignedBy as Conversation["assignedBy"]) ?? null,
    createdAt: item.createdAt as string,
    modifiedAt: (item.modifiedAt as string | null) ?? null,
  };
}
