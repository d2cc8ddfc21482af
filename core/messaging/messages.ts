import { getItems, queryEntries, readTogether, type PlannedRead } from "#core/db/items";
import type { TransactItem } from "#core/db/transact";
import { toLead } from "#core/leads/reads";
import { SendMessageSchema } from "#core/messaging/model";
import { domainOperation } from "#core/shared/operation";
import { MessageSend } from "#core/messaging/queue";
import "#core/messaging/queue";
import { actorId, type Actor } from "#core/auth/actor";
import { MessageEntity } from "#core/db/entities/messaging";
import { ConflictError, ForbiddenError, ValidationError } from "#core/errors";
import { assertCanSend } from "#core/messaging/billing-seam";
import * as MessageLifecycle from "#core/messaging/lifecycle";
import { DISPATCH_GRACE_MS } from "#core/messaging/lifecycle";
import * as Contacts from "#core/messaging/contacts";
import { consentBasisForContact } from "#core/leads/consent";
import { initiatorOf, type ConsentBasis } from "#core/consent/basis";
import * as Conversations from "#core/messaging/conversations";
import { type Conversation } from "#core/messaging/conversations";
import type { Lead } from "#core/leads/schemas";
import type { Message, SendMessageRequest } from "#core/messaging/model";
import * as PhoneNumbers from "#core/messaging/phone-numbers";
import { type PhoneNumber } from "#core/messaging/phone-numbers";
import { assertRegisteredSender, registrationRequired } from "#core/messaging/sender-registration";
import { countSegments } from "#core/shared/segments";
import { messageLifecycle } from "#core/shared/status";
import { readMessage, dueShards } from "#core/messaging/store";
import { messageFromId } from "#core/messaging/message-reads";
import { firstRead, type PreparedSend } from "#core/messaging/send-read";
import { publish } from "#core/queue/messages";
import { newId, nowIso } from "#core/shared/ids";

/** The furthest ahead a message may be scheduled: a campaign's follow-ups, not a reminder for next year. */
export const MAX_SCHEDULE_AHEAD_DAYS = 30;

interface SendOptions {
  beforeWriting?: () => Promise<void>;
  /** The new message's id when the caller fixes it (an automation step's effect, an alert's): a retry finds the first. */
  messageId?: () => Promise<string | undefined>;
  /**
   * A write committed in the message's own transaction, made from the message as answered: the HTTP edge's
   * Idempotency-Key answer (so the message and its answer are stored together or not at all).
   */
  alsoWrite?: (message: Message) => TransactItem | undefined;
  /** A read of the caller's in the send's first batch, which may refuse the send before it writes (the Idempotency-Key's record). */
  alsoRead?: PlannedRead<void>;
  /** What a sender inside the service records on the message: an automation as its creator, a compliance reply's purpose. */
  origin?: Partial<Pick<Message, "createdBy" | "purpose">>;
  /** The consent basis the caller already decided (an automation step checks it to skip): not read again. */
  consentBasis?: ConsentBasis | null;
  /**
   * The lead of `leadId` as the caller read it consistently a moment before (an automation step): not read again,
   * and its number's conversation pointer joins the send's first read.
   */
  lead?: Lead;
  /** The send's first read, made with the caller's read of `lead` (`sendRead`): used when it is for that lead's number. */
  prepared?: PreparedSend;
}

/** Outbound and inbound SMS/MMS of the organization. */

/** A message of the organization, read consistently; undefined when absent. */
export { readMessage as find };

/** The shards of the due-message index (operator diagnostics count what waits in them). */
export { dueShards };

/**
 * The conversation's `limit` newest messages accepted before `messageId` (message ids are ULIDs, so a key range),
 * newest first, with the named attributes, read consistently from the table (the index holds only keys).
 */
export async function before(
  organizationId: string,
  conversationId: string,
  messageId: string,
  limit: number,
  attributes: string[],
): Promise<Record<string, unknown>[]> {
  const self = { organizationId, conversationId, id: messageId };
  const { Items: earlier = [] } = await queryEntries(
    MessageEntity.queryPartition("byConversation", self, {
      range: { below: MessageEntity.sortKey("byConversation", self) },
      forward: false,
      limit,
    }),
  );
  if (earlier.length === 0) return [];
  const stored = await getItems(
    earlier.map((entry) => ({ pk: String(entry.pk), sk: String(entry.sk) })),
    { consistent: true, attributes },
  );
  return stored.sort((a, b) => String(b.id).localeCompare(String(a.id)));
}

/**
 * `POST /messages`: validates the recipient and sender, stores the message
 * `Pending` and hands it to the outbound queue. Sender choice, compliance,
 * quiet hours, billing and the provider call happen in the consumer.
 */
/**
 * `beforeWriting`: awaited after the reads and before the first write (the HTTP edge's rate-limit admission).
 * `messageId`: the new message's id, fixed by the caller (asked for after `beforeWriting`); when a message with it is
 * stored already (the first attempt died before answering), it is the answer and nothing is written.
 * `alsoWrite`: the request's Idempotency-Key answer, stored in the message's transaction (a retry of a request
 * that died after it finds the answer; of two at once, one stores and the other finds its answer).
 */
export const send = domainOperation(
  { input: SendMessageSchema, permission: "messages:send" },
  async (actor: Actor, input: SendMessageRequest, options: SendOptions = {}): Promise<Message> => {
    const organizationId = actor.organizationId;
    if (input.overrideQuietHours && !actor.permissions.has("messages:overrideQuietHours")) {
      throw new ForbiddenError("Overriding quiet hours needs the 'messages:overrideQuietHours' permission.");
    }
    if (input.scheduledFor !== undefined && Date.parse(input.scheduledFor) <= Date.now()) {
      throw new ValidationError("scheduledFor must be in the future.", [
        { pointer: "/scheduledFor", detail: "Must be a future date-time; omit it to send now." },
      ]);
    }
    if (
      input.scheduledFor !== undefined &&
      Date.parse(input.scheduledFor) > Date.now() + MAX_SCHEDULE_AHEAD_DAYS * 86_400_000
    ) {
      throw new ValidationError("scheduledFor is too far ahead.", [
        { pointer: "/scheduledFor", detail: `Must be at most ${MAX_SCHEDULE_AHEAD_DAYS} days from now.` },
      ]);
    }
    // One consistent BatchGetItem for what the request names (issue 27): the lead, the wallet and its shards, for a
    // number given as is its conversation pointer, and the conversation this instance last sent to for that lead or
    // number (a hint, used only when what was read confirms it: else the pointer, then the conversation, are read);
    // beside it the sender and, for a bare number, the newest lead with it. Refusals keep the order of the checks:
    // recipient, sender, wallet. The conversation is null when the number has none yet, so `ensure` creates it
    // without looking again.
    const bareNumber = input.to && !input.leadId ? input.to : undefined;
    const knownLead = input.leadId && options.lead?.id === input.leadId ? options.lead : undefined;
    // The number whose conversation pointer is read with the rest: a bare number, or the number of a lead at hand.
    const knownPhone = bareNumber ?? knownLead?.contact.phone?.number ?? undefined;
    // Read by the caller with its lead (an automation step): only for the number it was planned for. A lead whose
    // number changed between the caller's guess and its read has them read again for the number it has (rare).
    const prepared = options.prepared;
    const reads =
      knownLead && prepared?.leadId === knownLead.id && prepared.phone === knownPhone && !options.alsoRead
        ? Promise.resolve(prepared.items)
        : readTogether([
            firstRead(organizationId, {
              leadId: knownLead ? undefined : input.leadId,
              phone: knownPhone,
              recipient: input.leadId ?? input.to ?? "",
              ...(options.alsoRead ? { alsoRead: options.alsoRead } : {}),
            }),
          ]).then(([items]) => items);
    const recipient = input.leadId
      ? reads.then(([item]) =>
          Contacts.recipient(organizationId, input, "text", { lead: knownLead ?? (item && toLead(item)) }),
        )
      : Contacts.recipient(organizationId, input, "text");
    const conversationById = (id: string | undefined) =>
      id ? Conversations.find(organizationId, id).then((found) => found ?? null) : null;
    const [{ to, leadId }, sender, , knownConversation, [leadItem]] = await allInOrder([
      recipient,
      senderOf(organizationId, input.fromPhoneNumberId),
      reads.then(([, parts]) => assertCanSend(organizationId, { parts })),
      knownPhone
        ? reads.then(([, , pointed, conversation]) =>
            conversation && conversation.id === pointed ? conversation : conversationById(pointed),
          )
        : Promise.all([recipient, reads]).then(([{ to: phone }, [, , , conversation]]) =>
            conversation?.contactPhoneNumber === phone
              ? conversation
              : Conversations.byPhone(organizationId, phone).then((found) => found ?? null),
          ),
      reads,
    ]);
    await refuseUnregisteredSender(organizationId, sender, input.media?.length ? "mms" : "sms");
    // A bare number of a lead's conversation is that lead's: its consent governs the send, not only a named lead's.
    const consentLeadId = leadId ?? knownConversation?.leadId ?? undefined;
    let consentBasis =
      options.consentBasis !== undefined
        ? options.consentBasis
        : await consentBasisForContact(organizationId, consentLeadId, initiatorOf(actor), leadItem);
    await options.beforeWriting?.();
    // A message stored under this id already (the first attempt died before answering) is found by its create's
    // condition below, not read first: the common path saves a round trip.
    const messageId = await options.messageId?.();
    const body = input.body ?? "";
    const media = input.media ?? [];
    const createdAt = nowIso();
    const lead = knownLead ?? (leadItem && toLead(leadItem));
    // A number with no conversation yet: the message's transaction creates it (`planNew`), when the lead it is met
    // through is at hand; a refused transaction may mean another send created it first: then `ensure` finds it.
    const planned =
      knownConversation === null && (!leadId || lead?.id === leadId)
        ? Conversations.planNew(organizationId, to, lead, { body, at: createdAt })
        : undefined;
    const compose = async (conversation: Conversation): Promise<Message> => {
      // A conversation another request linked to a lead meanwhile: that lead's consent is checked before anything is stored.
      if (options.consentBasis === undefined && !consentLeadId && conversation.leadId)
        consentBasis = await consentBasisForContact(organizationId, conversation.leadId, initiatorOf(actor));
      return newMessage({
        ...(messageId ? { id: messageId } : {}),
        conversationId: conversation.id,
        leadId: leadId ?? conversation.leadId ?? null,
        assignedUserId: conversation.assignedUserId,
        direction: "Outbound",
        status: "Pending",
        body,
        media,
        fromPhoneNumberId: sender?.id ?? null,
        fromPhoneNumber: sender?.phoneNumber ?? null,
        toPhoneNumber: to,
        selectionReason: sender ? "ManualOverride" : null,
        wasManuallyOverridden: Boolean(sender),
        quietHoursOverridden: input.overrideQuietHours,
        scheduledFor: input.scheduledFor ? new Date(input.scheduledFor).toISOString() : null,
        scheduledReason: input.scheduledFor ? "RequestedByCaller" : null,
        campaignId: input.campaignId ?? null,
        createdBy: actorId(actor),
        actorUserId: actor.userId ?? null,
        actorDisplayName: actor.displayName,
        actorEmail: actor.email ?? null,
        consentBasis,
        createdAt,
        ...options.origin,
      });
    };
    const store = async (conversation: Conversation, newConversation?: TransactItem[]): Promise<Message> => {
      const message = await compose(conversation);
      await enqueue(organizationId, message, actor, options.alsoWrite?.(message), newConversation);
      Conversations.remember(organizationId, input.leadId ?? to, conversation.id);
      return message;
    };
    try {
      if (!planned) return await store(await Conversations.ensure(organizationId, to, leadId, knownConversation));
      try {
        return await store(planned.conversation, planned.writes);
      } catch (error) {
        if (!(error instanceof ConflictError)) throw error;
        // Refused: the number's conversation was created meanwhile (or the message id or the answer was taken,
        // which the send below meets again).
        return await store(await Conversations.ensure(organizationId, to, leadId));
      }
    } catch (error) {
      const stored =
        messageId && error instanceof ConflictError ? await readMessage(organizationId, messageId) : undefined;
      if (!stored) throw error;
      return stored;
    }
  },
);

/** A message the caller may read; else 404 (message-reads.ts). */
export { messageFromId as fromId };

/** `POST /messages/{id}/cancel`: only before the message is handed to the provider (Pending, Scheduled, Queued). */
export async function cancel(actor: Actor, messageId: string, reason: string | undefined): Promise<Message> {
  const current = await messageFromId(actor, messageId);
  const from = messageLifecycle.acceptedFrom("Canceled");
  const now = nowIso();
  const canceled = await MessageLifecycle.finish(
    actor.organizationId,
    current,
    {
      from,
      set: {
        status: "Canceled",
        canceledAt: now,
        cancelReason: reason ?? "CanceledByUser",
        statusReason: "Canceled by the caller.",
      },
      due: null,
    },
    { actor },
  );
  if (!canceled) {
    throw new ConflictError(
      `The message is ${current.status === "Canceled" ? "already canceled" : `${current.status}`} and can no longer be canceled.`,
    );
  }
  return canceled.message;
}

/** A message with every optional field empty; segments and channel follow from body and media. */
export function newMessage(
  fields: Pick<Message, "conversationId" | "direction" | "status" | "body" | "media" | "toPhoneNumber" | "createdBy"> &
    Partial<Message>,
): Message {
  const segments = countSegments(fields.body);
  return {
    id: newId(),
    leadId: null,
    assignedUserId: null,
    channel: fields.media.length ? "Mms" : "Sms",
    statusReason: null,
    segments: Math.max(1, segments.segments),
    encoding: segments.encoding,
    fromPhoneNumberId: null,
    fromPhoneNumber: null,
    selectionReason: null,
    wasManuallyOverridden: false,
    quietHoursOverridden: false,
    scheduledFor: null,
    scheduledReason: null,
    complianceAction: null,
    billingStatus: null,
    billableAmount: null,
    errorCode: null,
    retryCount: 0,
    nextRetryAt: null,
    provider: null,
    providerMessageId: null,
    providerStatus: null,
    cancelReason: null,
    campaignId: null,
    purpose: null,
    queuedAt: null,
    sendingStartedAt: null,
    sentAt: null,
    deliveredAt: null,
    undeliverableAt: null,
    failedAt: null,
    blockedAt: null,
    canceledAt: null,
    receivedAt: null,
    createdAt: nowIso(),
    modifiedAt: null,
    actorUserId: null,
    actorDisplayName: null,
    actorEmail: null,
    ...fields,
  };
}

/**
 * Stores an outbound message Pending (with its MessageAccepted event and its conversation's summary, one transaction:
 * no second write before the answer, issue 27) and hands it to the outbound queue. `alsoWrite` commits with them (the
 * request's Idempotency-Key answer); when its condition or the message's fails, nothing is stored (a ConflictError).
 */
export async function enqueue(
  organizationId: string,
  message: Message,
  actor?: Actor,
  alsoWrite?: TransactItem,
  /** The writes creating the message's conversation with its note (`Conversations.planNew`), instead of the note. */
  newConversation?: TransactItem[],
): Promise<void> {
  const due = { at: new Date(Date.now() + DISPATCH_GRACE_MS).toISOString(), kind: "Dispatch" as const };
  const summary = Conversations.messageNote(organizationId, message.conversationId, {
    direction: "Outbound",
    body: message.body,
    at: message.createdAt,
  });
  const writes: TransactItem[] = [...(newConversation ?? [{ Update: summary }]), ...(alsoWrite ? [alsoWrite] : [])];
  if (!(await MessageLifecycle.create(organizationId, message, due, { actor }, writes)))
    throw new ConflictError(
      `Message ${message.id} was not stored: its id or this request's Idempotency-Key was taken.`,
    );
  await publish(MessageSend, organizationId, {
    messageId: message.id,
    to: message.toPhoneNumber,
    conversationId: message.conversationId,
    // A compliance reply (purpose) checks no quiet hours or opt-out: its consumer has no use for the lead.
    ...(message.leadId && !message.purpose ? { leadId: message.leadId } : {}),
  });
}

async function senderOf(organizationId: string, phoneNumberId: string | undefined) {
  if (!phoneNumberId) return undefined;
  const sender = await PhoneNumbers.find(organizationId, phoneNumberId);
  if (!sender) {
    throw new ValidationError("The sender number does not exist in this organization.", [
      { pointer: "/fromPhoneNumberId", detail: `Phone number ${phoneNumberId} was not found.` },
    ]);
  }
  return sender;
}

/** Where 10DLC registration is required, a send no registered number can carry is refused (422) before it is stored. */
async function refuseUnregisteredSender(
  organizationId: string,
  sender: PhoneNumber | undefined,
  capability: "sms" | "mms",
): Promise<void> {
  if (!(await registrationRequired(organizationId))) return;
  assertRegisteredSender(sender ? [] : await PhoneNumbers.all(organizationId), sender, capability);
}

/**
 * Runs independent steps at once (one round trip instead of several) but
 * reports their failures in the order they are listed: the caller gets the same
 * error it got when the checks ran one after the other, whichever finishes first.
 */
async function allInOrder<T extends readonly unknown[]>(steps: { [K in keyof T]: Promise<T[K]> }): Promise<T> {
  const settled = await Promise.allSettled(steps as readonly Promise<unknown>[]);
  for (const outcome of settled) if (outcome.status === "rejected") throw outcome.reason;
  return settled.map((outcome) => (outcome as PromiseFulfilledResult<unknown>).value) as unknown as T;
}
