import { LeadOptedOut, MessageSend } from "#core/messaging/queue";
import { logger } from "#core/observability/index";
import "#core/messaging/queue";
import { reserveForMessage, type BillingDecision } from "#core/messaging/billing-seam";
import { where } from "#core/db/expression";
import { combinedRead, nothingToRead, readTogether, type PlannedRead } from "#core/db/items";
import * as Billing from "#core/billing/index";
import { type PriceList, type StoredReservation } from "#core/billing/index";
import { frequencyCapsRead } from "#core/consent/settings";
import { messagingConfig } from "#core/messaging/config";
import * as Contacts from "#core/messaging/contacts";
import { type Contact } from "#core/messaging/contacts";
import * as Conversations from "#core/messaging/conversations";
import { type Conversation } from "#core/messaging/conversations";
import * as MessageLifecycle from "#core/messaging/lifecycle";
import { DISPATCH_GRACE_MS, recordProviderId } from "#core/messaging/lifecycle";
import type { Message } from "#core/messaging/model";
import * as PhoneNumbers from "#core/messaging/phone-numbers";
import { BUSY_RELISTING_MS, type SenderNumber } from "#core/messaging/phone-numbers";
import { checkContactWindow, frequencyCapRefusal } from "#core/messaging/contact-rules";
import { passedCheck } from "#core/consent/contact-rules";
import { conversationAhead } from "#core/messaging/conversation-order";
import * as Pacing from "#core/messaging/pacing";
import {
  isThrottle,
  isThrottleCode,
  lanesOf,
  leastBusy,
  markLaneUsed,
  skipHandOver,
  untilFailover,
  untilHandOver,
  waitInQueue,
  type Slot,
  type Turn,
} from "#core/messaging/pacing";
import {
  eligibleSenders,
  registrationRequired,
  senderPool,
  senderRefusal,
  type SenderRefusal,
} from "#core/messaging/sender-registration";
import * as MessagingSettingsStore from "#core/messaging/settings";
import { messageLifecycle, planRetry, type MessageStatus } from "#core/shared/status";
import {
  changeMessage,
  messageToSendRead,
  readMessage,
  readMessageToSend,
  refusedAttemptsOf,
  type MessageChange,
} from "#core/messaging/store";
import * as Suppressions from "#core/suppressions/index";
import * as MessagingEvents from "#core/messaging/timeline";
import { organizationProfile } from "#core/organizations/profile";
import { organizationProviders } from "#core/messaging/provider-choice";
import { statusCallbackUrl } from "#core/providers/index";
import { ProviderError, type ProviderPort, type SendMessageResult } from "#core/providers/port";
import { maxDelaySeconds, publish } from "#core/queue/messages";
import { PROCESSING_ERROR } from "#core/queue/subscribe";
import type { SenderSelectionReason } from "#core/shared/enums";
import { nowIso } from "#core/shared/ids";
import { parsePhone, recipientTimeZone } from "#core/shared/phone";

/**
 * The outbound pipeline, run by the outbound queue's consumer for one message
 * id. Every step reads the stored message and moves it with a conditional
 * write, so a redelivered or duplicated queue message does no harm:
 *
 *   Pending/Scheduled → (quiet hours, scheduledFor) → Scheduled, or Queued
 *   Queued → compliance (Blocked) → sender → billing seam (Blocked) → claim Sending → provider
 *   provider error → transient: Queued with retryCount/nextRetryAt, or Failed after the last retry;
 *                    permanent: Failed; opted out: Failed + suppression.
 *
 * The claim (Queued → Sending, conditional on the retry count) is what makes a
 * send reach the provider at most once; the message id is also the provider's
 * idempotency key.
 */

export async function process(
  organizationId: string,
  messageId: string,
  slot?: Slot,
  carried: { to?: string; conversationId?: string; leadId?: string } = {},
): Promise<void> {
  const { stored, read, contact } = await processReads(organizationId, messageId, carried);
  const message = stored?.message;
  if (!message || message.direction !== "Outbound" || messageLifecycle.isFinal(message.status)) return;
  // The dispatch reads taken with the message serve only the message they were taken for.
  const taken = read && read.for === `${message.toPhoneNumber} ${message.conversationId}` ? read.items : undefined;
  const known = contact && contact.for === message.leadId ? { contact: contact.contact } : undefined;
  if (message.status === "Pending" || message.status === "Scheduled")
    return plan(organizationId, message, taken, known);
  if (message.status === "Queued")
    return dispatchQueued(organizationId, message, slot ?? stored.heldSlot, taken, known);
  // Sending, Sent, Unknown: waiting for the provider's receipts.
}

/**
 * The poison hook of `message.send` (core/queue/subscribe): the last attempt
 * failed, so a message not yet handed to the provider ends Failed
 * (`ProcessingError`), its hold released in the same write, with its event.
 * A claimed one (Sending) is left to the receipt timeout.
 */
export async function abandon(organizationId: string, messageId: string, error: unknown): Promise<void> {
  const message = await readMessage(organizationId, messageId);
  if (!message || message.direction !== "Outbound") return;
  await fail(
    organizationId,
    message,
    WAITING,
    PROCESSING_ERROR,
    `${PROCESSING_ERROR}: processing kept failing (${error instanceof Error ? error.message : String(error)}).`,
  );
}

/** Sends a message the caller read as Queued (the consumer's step after `process`; tests replay a stale read with it). */
export const dispatch = (organizationId: string, message: Message): Promise<void> =>
  dispatchQueued(organizationId, message);

/**
 * A receipt that ends the message's attempt because its number sent too fast (Twilio's 30022 or 14107 on a
 * `failed`/`undelivered` callback or lookup of a send it had accepted): nothing reached the handset, so the message
 * does not end. The number sends nothing for the back-off (its other messages wait, the pool's other numbers go on)
 * and the message is queued again like a send refused for now, charged once when it ends. Only the receipt of the
 * attempt in flight counts (its provider id, which the requeue clears: a repeated callback of that attempt finds
 * none and changes nothing; one that comes before the id is stored is left to the receipt sweep's lookup). False
 * when the receipt is not such a refusal or the message is no longer in flight, for the lifecycle to apply it. Its own
 * function, not a member of `Outbound`, so the status callback's bundle leaves the send path out.
 */
export async function throttledAtCarrier(
  organizationId: string,
  message: Message,
  receipt: { status: MessageStatus; providerStatus: string; errorCode?: string; providerMessageId?: string },
): Promise<boolean> {
  const refusedAttempt = receipt.providerMessageId ?? message.providerMessageId;
  if (
    (message.status !== "Sending" && message.status !== "Sent") ||
    (receipt.status !== "Failed" && receipt.status !== "Undelivered") ||
    !isThrottleCode(receipt.errorCode) ||
    !message.fromPhoneNumberId ||
    !refusedAttempt
  )
    return false;
  const error = new ProviderError(
    "transient",
    receipt.errorCode!,
    `the carrier reported ${receipt.providerStatus} (${receipt.errorCode}): the number sent too fast`,
    {},
  );
  await Pacing.throttled(organizationId, message.fromPhoneNumberId, error);
  // The refused attempt is remembered (conditional on it being the one in flight, so two of its callbacks add it
  // once): its late callbacks and the hand-off recovery of the next attempt must never take it for that one.
  const refused = await refusedAttemptsOf(organizationId, message.id);
  await retryLater(organizationId, message, error, {
    from: ["Sending", "Sent"],
    condition: where.equals("providerMessageId", refusedAttempt),
    remove: ["providerMessageId"],
    set: { refusedAttempts: [...refused, refusedAttempt] },
  });
  return true;
}

const SLACK_MS = 1_000;

/** How soon a send held behind its conversation's earlier one looks again. */
const ORDER_RECHECK_MS = 1_000;

/** The statuses of a message not yet handed to the provider. */
const WAITING: MessageStatus[] = ["Pending", "Scheduled", "Queued"];

/**
 * The message's lead as this invocation read it (undefined: no lead, or gone): read once, by the first step that needs
 * it (quiet hours, then the opt-out check), or with the message when the queue message names the lead (issue 27).
 */
type KnownContact = { contact: Contact | undefined };

async function leadContact(organizationId: string, message: Message, known?: KnownContact): Promise<KnownContact> {
  if (known) return known;
  return { contact: message.leadId ? await Contacts.ofLead(organizationId, message.leadId) : undefined };
}

/** Decides when a Pending or Scheduled message may go: its scheduledFor, moved out of quiet hours unless overridden. */
async function plan(
  organizationId: string,
  message: Message,
  read?: DispatchReads,
  known?: KnownContact,
): Promise<void> {
  const now = Date.now();
  let at = Math.max(now, message.scheduledFor ? Date.parse(message.scheduledFor) : now);
  let scheduledReason = message.scheduledReason;
  let complianceAction = message.complianceAction;
  // The windows it passed, kept for its record; dispatch adds the rules it passes then (opt-out, suppression, caps).
  let windowChecks: string[] = [];
  if (!message.quietHoursOverridden && !message.purpose) {
    known = await leadContact(organizationId, message, known);
    const decision = await quietHours(organizationId, message, at, known.contact);
    if (!decision.allowed) {
      at = Date.parse(decision.nextAllowedAt);
      scheduledReason = decision.scheduledReason;
      complianceAction = decision.complianceAction ?? complianceAction;
    } else windowChecks = decision.checks ?? [];
  }
  if (at > now + SLACK_MS)
    return scheduleAt(organizationId, message, at, {
      from: ["Pending", "Scheduled"],
      scheduledReason,
      complianceAction,
    });
  // Queued now, written when it is first needed (issue 27, h40): with the claim, in one transaction, when the sender's
  // slot is free at once; before anything else that leaves the message waiting or ends it (`queuedFirst`).
  const toQueued: QueuedChange = {
    from: ["Pending", "Scheduled"],
    set: { status: "Queued", ...(message.purpose ? {} : { complianceChecks: windowChecks }) },
  };
  // The lead read for quiet hours serves the opt-out check a moment later, as the suppression entry read with the
  // message does.
  await dispatchQueued(organizationId, message, undefined, read, known, toQueued);
}

/**
 * Moves a message waiting to be sent to Scheduled at `at` (epoch ms), saying why: back to the queue with a delay when
 * that is within SQS's 15 minutes, else into the due index for the sweep to release. `from`: the statuses it may be
 * moved from (with `condition`, and `remove` for what no longer applies once it waits for its time).
 */
async function scheduleAt(
  organizationId: string,
  message: Message,
  at: number,
  {
    from,
    scheduledReason,
    complianceAction,
    condition,
    remove,
  }: Pick<MessageChange, "from" | "condition" | "remove"> & {
    scheduledReason: Message["scheduledReason"];
    complianceAction: Message["complianceAction"];
  },
): Promise<void> {
  const now = Date.now();
  const scheduledFor = new Date(at).toISOString();
  const near = at - now <= maxDelaySeconds * 1000;
  const change = {
    from,
    ...(condition ? { condition } : {}),
    ...(remove ? { remove } : {}),
    set: { status: "Scheduled" as const, scheduledFor, scheduledReason, complianceAction },
    due: near
      ? { at: new Date(at + DISPATCH_GRACE_MS).toISOString(), kind: "Dispatch" as const }
      : { at: scheduledFor, kind: "Release" as const },
  };
  // Its event only when it enters Scheduled or its time moves; a replanned message keeps the one it has.
  const scheduled =
    message.status !== "Scheduled" || message.scheduledFor !== scheduledFor
      ? await MessageLifecycle.move(organizationId, message, change)
      : await changeMessage(organizationId, message.id, change);
  if (!scheduled) return;
  if (near) await publish(MessageSend, organizationId, { messageId: message.id }, { delaySeconds: (at - now) / 1000 });
}

/**
 * The move of a Pending or Scheduled message to Queued that `plan` decided (with the windows a text passed) and
 * `dispatch` writes (`queuedFirst`, or with the claim), stamped then (`writtenAt`).
 */
type QueuedChange = { from: MessageStatus[]; set: { status: "Queued"; complianceChecks?: string[] } };

/**
 * The message `dispatch` goes on with: as it is, or (a Pending or Scheduled message `plan` queued) written Queued
 * first, with its event, before a step that leaves it waiting (its conversation's earlier send, its slot) or ends it
 * (blocked, failed), so those keep writing from Queued and record what they did before. Undefined when the message
 * moved on meanwhile; its hold, when this invocation took one before the write, is then settled if it ended (as a
 * lost claim's is).
 */
async function queuedFirst(
  organizationId: string,
  message: Message,
  toQueued: QueuedChange | undefined,
  held = false,
): Promise<Message | undefined> {
  if (!toQueued) return message;
  const written = writtenAt(toQueued, Date.now());
  const queued = await MessageLifecycle.move(organizationId, message, written, { at: written.set.queuedAt });
  if (!queued && held) await MessageLifecycle.settleIfEnded(organizationId, message.id);
  return queued;
}

/**
 * `toQueued` as written at `at`: Queued at the time of the write that records it, its event's time (`plan` decided it
 * before the checks, the hold and the booking, so a client reading events by time window could miss an earlier one).
 */
function writtenAt(
  toQueued: QueuedChange,
  at: number,
): MessageChange & { set: { status: "Queued"; queuedAt: string } } {
  return {
    ...toQueued,
    set: { ...toQueued.set, queuedAt: new Date(at).toISOString() },
    due: { at: new Date(at + DISPATCH_GRACE_MS).toISOString(), kind: "Dispatch" },
  };
}

async function quietHours(organizationId: string, message: Message, at: number, contact: Contact | undefined) {
  const organizationRead = organizationProfile(organizationId);
  const [settings, organization] = await Promise.all([
    MessagingSettingsStore.read(organizationId, organizationRead),
    organizationRead,
  ]);
  const { timeZone } = recipientTimeZone({
    phone: message.toPhoneNumber,
    state: contact?.state,
    organizationTimeZone: organization?.timeZone ?? "America/New_York",
  });
  return checkContactWindow({ at: new Date(at), timeZone, window: settings.quietHours, state: contact?.state });
}

/**
 * Sends a Queued message: compliance, sender, billing, claim, provider. `toQueued`: the message is still Pending or
 * Scheduled and `plan` queued it: written Queued with the claim when the sender's slot is free at once (one
 * transaction, both events), else first (`queuedFirst`).
 */
async function dispatchQueued(
  organizationId: string,
  message: Message,
  slot?: Slot,
  taken?: DispatchReads,
  known?: KnownContact,
  toQueued?: QueuedChange,
): Promise<void> {
  const now = Date.now();
  if (message.nextRetryAt && Date.parse(message.nextRetryAt) > now + SLACK_MS) {
    await publish(
      MessageSend,
      organizationId,
      { messageId: message.id },
      {
        delaySeconds: (Date.parse(message.nextRetryAt) - now) / 1000,
      },
    );
    return;
  }
  let complianceChecks: string[] | undefined;
  const read = taken ?? (await readTogether([dispatchRead(organizationId, message)]))[0];
  if (!message.purpose) {
    known = await leadContact(organizationId, message, known);
    const { contact } = known;
    // A message that was already Queued (it waited for its slot, behind its conversation's earlier send, or for a
    // retry) meets its windows again now: quiet hours may have begun while it waited, and a burst on a slow number
    // can wait many minutes. One that `plan` queues in this call was checked a moment ago.
    if (!toQueued && !message.quietHoursOverridden) {
      const window = await quietHours(organizationId, message, now, contact);
      if (!window.allowed)
        return scheduleAt(organizationId, message, Date.parse(window.nextAllowedAt), {
          from: ["Queued"],
          condition: where.equals("retryCount", message.retryCount),
          scheduledReason: window.scheduledReason,
          complianceAction: window.complianceAction ?? message.complianceAction,
          // Its slot and its place behind another send are given up; the windows it passed are checked again then.
          remove: ["heldSlot", "waitingBehind", "complianceChecks"],
        });
    }
    // The windows `plan` passed are on the message once it is Queued; until then, only in `toQueued`.
    const checked = toQueued?.set.complianceChecks ?? message.complianceChecks;
    const compliance = await complianceRules(organizationId, { ...message, complianceChecks: checked }, read, contact);
    complianceChecks = compliance.checks;
    if (compliance.refusal) {
      const queued = await queuedFirst(organizationId, message, toQueued);
      return queued && block(organizationId, queued, { ...compliance.refusal, complianceChecks });
    }
  }
  // The conversation's earlier send goes first (core/messaging/conversation-order.ts): this one waits a second, or
  // until that one's retry is due.
  const { waiting: ahead, handingOver } = read.onlyOutbound ? {} : await conversationAhead(organizationId, message);
  if (ahead) {
    const retryAt = ahead.nextRetryAt ? Date.parse(ahead.nextRetryAt) : 0;
    const queued = await queuedFirst(organizationId, message, toQueued);
    if (queued)
      await waitInQueue(organizationId, queued, Math.max(now + ORDER_RECHECK_MS, retryAt), { behind: ahead.id });
    return;
  }
  const selection = await selectSender(organizationId, message, read.conversation);
  if (!selection || "refused" in selection) {
    const queued = await queuedFirst(organizationId, message, toQueued);
    if (!queued) return;
    if (!selection)
      return fail(
        organizationId,
        queued,
        ["Queued"],
        "NoSenderNumber",
        "The organization has no phone number that can send this message.",
      );
    // Never handed to the carrier to be blocked (30034) or filtered: it fails here, saying what to do.
    return fail(organizationId, queued, ["Queued"], selection.refused.code, selection.refused.reason);
  }
  // Through a number paced in lanes, the conversation's earlier send still being handed over goes first: a lane's
  // spacing (200 ms) is no more than a request's time to the carrier can vary (conversation-order.ts).
  if (handingOver?.fromPhoneNumberId === selection.number.id && lanesOf(selection.number).count > 1) {
    const queued = await queuedFirst(organizationId, message, toQueued);
    if (queued) await waitInQueue(organizationId, queued, now + ORDER_RECHECK_MS, { behind: handingOver.id });
    return;
  }
  // Nor does it go there as another free number of the burst (`bookFree`).
  if (handingOver)
    selection.others = selection.others?.filter((option) => option.number.id !== handingOver.fromPhoneNumberId);
  const billing = await reserveForMessage(organizationId, message, read);
  if ("movedOn" in billing) return;
  if (!billing.allowed) {
    const queued = await queuedFirst(organizationId, message, toQueued);
    return (
      queued &&
      block(organizationId, queued, {
        complianceAction: "BillingBlocked",
        statusReason: billing.reason,
        billingStatus: billing.billingStatus,
        ...(complianceChecks ? { complianceChecks } : {}),
      })
    );
  }
  // A slot this message already holds on its number is kept. Otherwise it goes now if its number, or another free one
  // of the same kind, is free now (`bookFree`); a message still Pending goes straight to Sending only then, else it is
  // queued and waits as before.
  // A slot held on a lane the number no longer has (its rate was lowered since) is not kept.
  const holdsSlot = slot?.numberId === selection.number.id && (slot.lane ?? 0) < lanesOf(selection.number).count;
  if (holdsSlot) {
    selection.reason = slot.reason as SenderSelectionReason;
    // On the lane it was reserved on (its next free slot is not asked: the send goes in its own).
    selection.number = { ...selection.number, lane: slot.lane };
  }
  const free = holdsSlot ? undefined : await bookFree(organizationId, selection);
  if (toQueued && !free) {
    const queued = await queuedFirst(organizationId, message, toQueued, true);
    if (!queued) return;
    message = queued;
  }
  const turn =
    free ??
    (await Pacing.awaitSlot(
      organizationId,
      message,
      selection.number,
      selection.reason,
      holdsSlot ? slot : undefined,
      !holdsSlot,
    ));
  if (turn === undefined) return;
  // Whatever ends the send before its gate (the claim lost, a read or write that fails) still spends its booked time
  // (the old gate waited before the claim: the number's slot and hand-over were taken, and a redelivery that came back
  // at once would book the next ones further ahead each time) and passes its turn, so the send booked behind it is not
  // held until it is taken for gone. A failure of that pass does not hide the first one.
  try {
    await claimAndHandOver(
      organizationId,
      message,
      selection,
      billing,
      complianceChecks,
      turn,
      free ? toQueued : undefined,
    );
  } catch (error) {
    await skipHandOver(organizationId, turn).catch(() => undefined);
    throw error;
  }
  await skipHandOver(organizationId, turn);
}

/** A Queued message with its sender's hand-over booked: claims it (Sending) and gives it to its provider. */
async function claimAndHandOver(
  organizationId: string,
  message: Message,
  selection: SenderSelection,
  billing: Extract<BillingDecision, { allowed: true }>,
  complianceChecks: string[] | undefined,
  turn: Turn,
  toQueued?: QueuedChange,
): Promise<void> {
  const { primary: provider, failover } = await organizationProviders(organizationId);
  // Queued and Sending in one write, both at its time: Sending 1 ms after Queued, so their events keep their order.
  const at = Date.now();
  const queued = toQueued && writtenAt(toQueued, at);
  const claimedAt = new Date(queued ? at + 1 : at).toISOString();
  const claimed = await MessageLifecycle.claim(
    organizationId,
    message,
    {
      from: queued ? queued.from : ["Queued"],
      condition: where.equals("retryCount", message.retryCount),
      set: {
        status: "Sending",
        sendingStartedAt: claimedAt,
        fromPhoneNumberId: selection.number.id,
        fromPhoneNumber: selection.number.phoneNumber,
        selectionReason: selection.reason,
        provider: provider.name,
        billingStatus: billing.billingStatus,
        billableAmount: billing.billableAmount,
        ...(complianceChecks ? { complianceChecks } : {}),
      },
      // Each attempt starts at the primary provider; a failover of an earlier attempt is history.
      remove: ["failedOverFrom", "waitingBehind", "heldSlot"],
      due: {
        at: new Date(Date.parse(claimedAt) + messagingConfig.receiptCheckMs).toISOString(),
        kind: "ReceiptTimeout",
      },
    },
    queued,
  );
  if (!claimed) return;
  await afterClaim(organizationId, claimed, selection);
  try {
    const result = await handOver(organizationId, claimed, provider, failover, turn);
    if (!result) return;
    await recordProviderId(organizationId, claimed.id, result.providerMessageId);
    // Sender choice's order only: the send is with the carrier and its id stored, whatever becomes of this write.
    await markLaneUsed(organizationId, turn.number).catch((error: unknown) =>
      logger.error("a laned number was not marked used", { organizationId, phoneNumberId: turn.number.id, error }),
    );
  } catch (error) {
    if (!(error instanceof ProviderError)) throw error;
    await providerRefused(organizationId, claimed, error);
  }
}

/**
 * Gives a claimed (Sending) message to its provider; with a failover provider,
 * a transient refusal that surely did not send (the carrier answered: rate
 * limit, queue full, 5xx) hands it to the failover instead, once. The
 * message's `provider` is moved to the failover by a conditional write before
 * that second request (only from Sending, only from the primary, only in this
 * attempt), so the stored message always names the one provider
 * that may hold it: a crash between the two requests leaves it Sending at the
 * failover, settled by the receipt sweep, never sent again. An
 * ambiguous failure (timeout, connection lost after sending) or a permanent or
 * opted-out refusal never fails over (docs/decisions.md). Undefined when the
 * message moved on before the failover could take it.
 */
async function handOver(
  organizationId: string,
  message: Message,
  primary: ProviderPort,
  failover: ProviderPort | undefined,
  turn: Turn,
): Promise<SendMessageResult | undefined> {
  const send = (provider: ProviderPort) =>
    provider.sendMessage({
      from: message.fromPhoneNumber!,
      to: message.toPhoneNumber,
      ...(message.body ? { body: message.body } : {}),
      media: message.media.map((item) => ({ url: item.url, contentType: item.contentType })),
      idempotencyKey: message.id,
      statusCallbackUrl: statusCallbackUrl(provider.name, message.id, organizationId),
    });
  try {
    // The number's booked hand-over and its gate, passed here so nothing of ours runs between the gate and the carrier.
    await untilHandOver(organizationId, turn);
    return await send(primary);
  } catch (error) {
    const failsOver =
      failover && error instanceof ProviderError && error.kind === "transient" && !error.details.ambiguous;
    if (!failsOver) throw error;
    const moved = await changeMessage(organizationId, message.id, {
      from: ["Sending"],
      // This attempt's claim, still at the primary: one failover per attempt, never a second hand-over.
      condition: where.all(where.equals("provider", primary.name), where.equals("retryCount", message.retryCount)),
      set: {
        provider: failover.name,
        failedOverFrom: primary.name,
        errorCode: error.code,
        statusReason: `${primary.name} refused it for now (${error.message}); failed over to ${failover.name}.`,
      },
    });
    if (!moved) return undefined;
    // The same number at another carrier: its request passes the number's gate too, in a window of its own.
    await untilFailover(organizationId, turn);
    return await send(failover);
  }
}

/**
 * The conversation's sender becomes the number it was sent from, unless that is its number already (a sticky send:
 * no write). The number is marked used (`lastUsedAt`) by the write of its gate, right before the carrier request
 * (pacing.ts); a send on one of its other lanes marks it after the request (`markLaneUsed`).
 */
async function afterClaim(organizationId: string, message: Message, selection: SenderSelection): Promise<void> {
  await Promise.all([
    selection.reason === "StickyConversation"
      ? Promise.resolve()
      : Conversations.setSender(organizationId, message.conversationId, selection.number),
    selection.movedFrom
      ? MessagingEvents.record(organizationId, {
          eventType: "ConversationSenderMoved",
          eventCategory: "Conversation",
          description: `The conversation's number ${selection.movedFrom.phoneNumber ?? selection.movedFrom.id} was deleted; it moved to ${selection.number.phoneNumber} (${selection.reason}).`,
          conversationId: message.conversationId,
          ...(message.leadId ? { leadId: message.leadId } : {}),
          relatedEntityType: "Conversation",
          relatedEntityId: message.conversationId,
          fromPhoneNumberId: selection.number.id,
          fromPhoneNumber: selection.number.phoneNumber,
          toPhoneNumber: message.toPhoneNumber,
          selectionReason: selection.reason,
          statusReason: `PreviousNumberDeleted:${selection.movedFrom.id}`,
        })
      : Promise.resolve(),
  ]);
}

async function providerRefused(organizationId: string, message: Message, error: ProviderError): Promise<void> {
  if (error.kind === "transient" && error.details.ambiguous) {
    // The request may have reached the provider: never resend; the receipt timeout settles it (Unknown).
    await changeMessage(organizationId, message.id, {
      from: ["Sending"],
      set: { statusReason: `Provider outcome unknown: ${error.message}`, errorCode: error.code },
    });
    return;
  }
  if (error.kind === "transient") {
    // The back-off is best effort: the retry below is stored whatever becomes of it. Thrown past, the message stayed
    // Sending until the hand-off recovery (2 minutes), and its conversation's next message could pass it.
    if (isThrottle(error))
      await Pacing.throttled(organizationId, message.fromPhoneNumberId!, error).catch((failure: unknown) =>
        logger.error("a carrier throttle's back-off was not stored", {
          organizationId,
          phoneNumberId: message.fromPhoneNumberId,
          error: failure,
        }),
      );
    return retryLater(organizationId, message, error, { from: ["Sending"] });
  }
  if (error.kind === "optedOut") {
    await Suppressions.add(organizationId, {
      phoneNumber: message.toPhoneNumber,
      reason: "ProviderOptOut",
      ...(message.leadId ? { leadId: message.leadId } : {}),
    });
    await publish(LeadOptedOut, organizationId, {
      leadId: message.leadId ?? null,
      phoneNumber: message.toPhoneNumber,
      keyword: null,
      at: nowIso(),
    });
    return fail(
      organizationId,
      message,
      ["Sending"],
      error.code,
      `The recipient has opted out at the carrier: ${error.message}`,
      "ProviderOptOut",
    );
  }
  return fail(organizationId, message, ["Sending"], error.code, `The provider refused the message: ${error.message}`);
}

/**
 * Queues a message the carrier refused for now again, for a retry after the policy's back-off (or the carrier's
 * Retry-After), with its event; Failed once the retries are spent. Its hold stays (keyed by the message id, the next
 * dispatch reuses it), so whatever the number of attempts it is charged once, when it ends. `change` names the
 * statuses (and any condition) the message must still be in; nothing happens when it moved on meanwhile.
 */
async function retryLater(
  organizationId: string,
  message: Message,
  error: ProviderError,
  {
    set: extra = {},
    ...change
  }: Pick<MessageChange, "from" | "condition" | "remove"> & {
    set?: MessageChange["set"];
  },
): Promise<void> {
  const retry = planRetry({
    retryCount: message.retryCount,
    now: new Date(),
    policy: messagingConfig.retryPolicy,
    ...(error.details.retryAfterSeconds !== undefined ? { retryAfterSeconds: error.details.retryAfterSeconds } : {}),
  });
  if (!retry.retry) {
    await MessageLifecycle.finish(organizationId, message, {
      ...change,
      set: {
        ...extra,
        status: "Failed",
        failedAt: nowIso(),
        errorCode: error.code,
        statusReason: `Gave up after ${message.retryCount} retries: ${error.message}`,
      },
      due: null,
    });
    return;
  }
  const requeued = await MessageLifecycle.move(
    organizationId,
    message,
    {
      ...change,
      set: {
        ...extra,
        status: "Queued",
        retryCount: retry.retryCount,
        nextRetryAt: retry.nextRetryAt,
        errorCode: error.code,
        statusReason: `Transient provider error: ${error.message}`,
      },
      due: { at: new Date(Date.parse(retry.nextRetryAt) + DISPATCH_GRACE_MS).toISOString(), kind: "Dispatch" },
    },
    { type: "MessageRetryScheduled" },
  );
  if (!requeued) return;
  await publish(MessageSend, organizationId, { messageId: message.id }, { delaySeconds: retry.delayMs / 1000 });
}

type Refusal = { complianceAction: string; statusReason: string; billingStatus?: string; complianceChecks?: string[] };

/**
 * The single items a dispatch reads, in one BatchGetItem instead of a GetItem each: the recipient's suppression entry,
 * the frequency caps, the price list (for the hold) and the conversation (for its sticky number). Consistent, as the
 * conversation's own read was. None is in the organization's partition (issue 27): the suppression entry is in one of
 * its own, the caps and prices are the copies for this message (core/db/copies.ts; its settlement reads the same).
 */
function dispatchRead(
  organizationId: string,
  message: Pick<Message, "id" | "toPhoneNumber" | "conversationId">,
): PlannedRead<DispatchReads> {
  const read = combinedRead([
    Suppressions.findRead(organizationId, message.toPhoneNumber),
    frequencyCapsRead(organizationId, message.id),
    Billing.pricesRead(organizationId, message.id),
    Conversations.dispatchRead(organizationId, message.conversationId),
    // A hold taken before holds were kept on the message (a retry in flight across the deploy): it stands.
    Billing.reservationRead(organizationId, message.id),
  ]);
  return {
    keys: read.keys,
    from: (items) => {
      const [suppression, caps, prices, { conversation, onlyOutbound }, reservation] = read.from(items);
      return { suppression, caps, prices, conversation, onlyOutbound, reservation };
    },
  };
}

type DispatchReads = {
  suppression: ReturnType<ReturnType<typeof Suppressions.findRead>["from"]>;
  caps: ReturnType<ReturnType<typeof frequencyCapsRead>["from"]>;
  prices: PriceList;
  conversation: Conversation | undefined;
  /** The conversation has no outbound message but this one (`Conversations.dispatchRead`): nothing waits ahead. */
  onlyOutbound: boolean;
  /** The message's Reservation item, when it was held before holds were kept on the message itself. */
  reservation: StoredReservation | undefined;
};

/**
 * The consumer's first read: the message (with the slot it holds) and, when the queue message names its recipient and
 * conversation (`POST /messages` publishes them; they never change once a message is accepted, so the queue message
 * carries them safely), the items its dispatch reads, in the same consistent BatchGetItem (issue 27). They are read
 * one conditional write earlier than dispatch would read them (the Pending → Queued move of this same invocation),
 * and serve only the message whose recipient and conversation they name. So does its lead, when the queue message
 * names it (eighth pass): quiet hours and the opt-out check read it from here, not each on its own.
 */
async function processReads(
  organizationId: string,
  messageId: string,
  carried: { to?: string; conversationId?: string; leadId?: string },
): Promise<{
  stored: Awaited<ReturnType<typeof readMessageToSend>>;
  read?: { for: string; items: DispatchReads };
  contact?: { for: string; contact: Contact | undefined };
}> {
  if (!carried.to || !carried.conversationId) return { stored: await readMessageToSend(organizationId, messageId) };
  const [stored, items, contact] = await readTogether([
    messageToSendRead(organizationId, messageId),
    dispatchRead(organizationId, { id: messageId, toPhoneNumber: carried.to, conversationId: carried.conversationId }),
    carried.leadId ? Contacts.ofLeadRead(organizationId, carried.leadId) : nothingToRead,
  ]);
  return {
    stored,
    read: { for: `${carried.to} ${carried.conversationId}`, items },
    ...(carried.leadId ? { contact: { for: carried.leadId, contact } } : {}),
  };
}

/**
 * The contact rules a Queued text meets at dispatch: opt-out, suppression list, frequency caps. Answers the first
 * refusal, or none; either way `checks`, the message's `complianceChecks`: the windows `plan` stored and the rules
 * passed here (a refusal keeps those passed before it).
 */
async function complianceRules(
  organizationId: string,
  message: Message,
  { suppression, caps }: DispatchReads,
  contact: Contact | undefined,
): Promise<{ checks: string[]; refusal?: Refusal }> {
  const passed = new Set(message.complianceChecks ?? []);
  const checks = () => [...passed];
  if (contact?.smsOptedOut)
    return {
      checks: checks(),
      refusal: { complianceAction: "OptedOut", statusReason: "The lead has opted out of SMS." },
    };
  passed.add(passedCheck.optOut);
  if (suppression)
    return {
      checks: checks(),
      refusal: {
        complianceAction: "Suppressed",
        statusReason: `The number is on the suppression list (${suppression.reason}).`,
      },
    };
  passed.add(passedCheck.suppression);
  const cap = await frequencyCapRefusal(organizationId, message, contact?.state, caps);
  if ("refusal" in cap) return { checks: checks(), refusal: cap.refusal };
  for (const check of cap.checks) passed.add(check);
  return { checks: checks() };
}

async function block(organizationId: string, message: Message, refusal: Refusal): Promise<void> {
  await MessageLifecycle.finish(organizationId, message, {
    from: ["Queued"],
    set: { status: "Blocked", blockedAt: nowIso(), ...refusal },
    // A message ended while it waited for its slot no longer holds it.
    remove: ["heldSlot"],
    due: null,
  });
}

/** Ends a message Failed (from the given statuses): its hold released and its event in the same write. */
async function fail(
  organizationId: string,
  message: Message,
  from: readonly MessageStatus[],
  errorCode: string,
  statusReason: string,
  complianceAction?: string,
): Promise<void> {
  await MessageLifecycle.finish(organizationId, message, {
    from,
    set: {
      status: "Failed",
      failedAt: nowIso(),
      errorCode,
      statusReason,
      ...(complianceAction ? { complianceAction } : {}),
    },
    remove: ["heldSlot"],
    due: null,
  });
}

type SenderSelection = {
  number: SenderNumber;
  reason: SenderSelectionReason;
  movedFrom?: { id: string; phoneNumber: string | null };
  /** Other numbers that were free, in the order a send tries them when another took `number` first (`bookFree`). */
  others?: { number: SenderNumber; reason: SenderSelectionReason }[];
};

/** How many other free numbers a send tries when the one it chose was taken at the same moment. */
const FREE_ALTERNATIVES = 3;

/**
 * Sender rule: the caller's override; else the conversation's sticky number;
 * else (no sticky number, or it was deleted) the number that can send soonest
 * (pacing: speed to lead), among free ones one with the recipient's area code,
 * ties to the least recently used. Only numbers with the
 * needed capability (sms, or mms for media) are candidates, and of those the
 * conversation's agent's own numbers when they have any, else the shared pool's
 * (`senderPool`).
 */
async function selectSender(
  organizationId: string,
  message: Message,
  conversation: Conversation | undefined,
): Promise<SenderSelection | { refused: SenderRefusal } | undefined> {
  const capability = message.channel === "Mms" ? "mms" : "sms";
  // The numbers this send may name are read whatever the listing (a sticky or chosen number bought since it).
  const also = [conversation?.phoneNumberId, message.wasManuallyOverridden ? message.fromPhoneNumberId : null];
  const [listed, gated] = await Promise.all([
    PhoneNumbers.senders(organizationId, { also }),
    registrationRequired(organizationId),
  ]);
  const candidatesOf = (numbers: SenderNumber[]) => {
    const capable = numbers.filter((number) => number.capabilities.includes(capability));
    // Only registered (where required) and unpaused numbers are candidates: a sticky number that is neither yields to the pool.
    // Each as this send paces on it: a lane of a number faster than one lane (core/messaging/pacing.ts).
    return { capable, candidates: eligibleSenders(capable, gated).map((number) => Pacing.onLane(number)) };
  };
  let numbers = listed.numbers;
  let { capable, candidates } = candidatesOf(numbers);
  // A kept listing (`SENDER_LISTING_MS`) with no candidate left is listed again: a number bought since may send.
  if (listed.kept && candidates.length === 0) {
    numbers = (await PhoneNumbers.senders(organizationId, { also, fresh: true })).numbers;
    ({ capable, candidates } = candidatesOf(numbers));
  }
  if (capable.length > 0 && candidates.length === 0) return { refused: senderRefusal(gated) };
  const byId = (id: string | null | undefined) => candidates.find((number) => number.id === id);
  if (message.wasManuallyOverridden) {
    const chosen = byId(message.fromPhoneNumberId);
    if (chosen) return { number: chosen, reason: "ManualOverride" };
    // The caller's number lost its registration or was paused since the send was accepted: their choice is not silently replaced.
    if (capable.some((number) => number.id === message.fromPhoneNumberId)) return { refused: senderRefusal(gated) };
  }
  let movedFrom: SenderSelection["movedFrom"];
  if (conversation?.phoneNumberId) {
    const sticky = byId(conversation.phoneNumberId);
    if (sticky) return { number: sticky, reason: "StickyConversation" };
    if (!numbers.some((number) => number.id === conversation.phoneNumberId)) {
      movedFrom = { id: conversation.phoneNumberId, phoneNumber: conversation.phoneNumber };
    }
  }
  if (candidates.length === 0) return undefined;
  let { pool, theirs } = senderPool(candidates, conversation?.assignedUserId);
  // A pool saturated (no number free for `BUSY_RELISTING_MS`) from a kept listing at least that old is listed again:
  // a number is most often bought for this, and it may send now rather than after the listing's minute.
  const soonestFree = Math.min(...pool.map((number) => number.paceNextAt));
  if (
    listed.kept &&
    soonestFree - Date.now() >= BUSY_RELISTING_MS &&
    Date.now() - listed.listedAt >= BUSY_RELISTING_MS
  ) {
    const relisted = candidatesOf((await PhoneNumbers.senders(organizationId, { also, fresh: true })).numbers);
    if (relisted.candidates.length > 0)
      ({ pool, theirs } = senderPool(relisted.candidates, conversation?.assignedUserId));
  }
  const areaCode = parsePhone(message.toPhoneNumber)?.areaCode;
  const isLocal = (number: SenderNumber) => areaCode !== undefined && number.areaCode === areaCode;
  const now = Date.now();
  const byRecency = [...pool].sort(
    (a, b) => (a.lastUsedAt ?? "").localeCompare(b.lastUsedAt ?? "") || a.createdAt.localeCompare(b.createdAt),
  );
  const free = byRecency.filter((number) => number.paceNextAt <= now);
  const chosen = free.find(isLocal) ?? free[0] ?? leastBusy(byRecency, now)!;
  const reasonOf = (number: SenderNumber): SenderSelectionReason =>
    theirs ? "AgentNumber" : isLocal(number) ? "AreaCodeMatch" : "LeastRecentlyUsed";
  // Sends dispatched together read the same numbers free and choose the same one; all but one would then wait behind
  // it while others stay free. So a send also carries a few other free numbers of the same kind as its choice (local
  // ones for a local choice), at random, so that the sends of a burst try different ones.
  const alike = free.filter((number) => number !== chosen && isLocal(number) === isLocal(chosen));
  const others = shuffled(alike)
    .slice(0, FREE_ALTERNATIVES)
    .map((number) => ({ number, reason: reasonOf(number) }));
  return {
    number: chosen,
    reason: reasonOf(chosen),
    ...(movedFrom ? { movedFrom } : {}),
    ...(others.length > 0 ? { others } : {}),
  };
}

/** A copy of `items` in random order (Fisher–Yates). */
function shuffled<T>(items: T[]): T[] {
  const copy = [...items];
  for (let index = copy.length - 1; index > 0; index--) {
    const other = Math.floor(Math.random() * (index + 1));
    [copy[index], copy[other]] = [copy[other]!, copy[index]!];
  }
  return copy;
}

/**
 * Books the send's turn now on its chosen number, or, when another send took that one's free slot first, on the
 * first of its other free numbers still free (`others`); the selection then names the number booked. Undefined when
 * none was free any more: the send waits for its chosen number.
 */
async function bookFree(organizationId: string, selection: SenderSelection): Promise<Turn | undefined> {
  for (const option of [{ number: selection.number, reason: selection.reason }, ...(selection.others ?? [])]) {
    const booked = await Pacing.bookIfFree(organizationId, option.number);
    if (booked) {
      selection.number = option.number;
      selection.reason = option.reason;
      return booked;
    }
  }
  return undefined;
}
