import { LeadOptedOut, MessageReceived } from "#core/messaging/queue";
import * as NumberHealth from "#core/messaging/number-health";
import "#core/messaging/queue";
import { verifiedProvider } from "#core/providers/index";
import { readTogether } from "#core/db/items";
import * as MessageLifecycle from "#core/messaging/lifecycle";
import { endsCharged, inboundClaimPut, settlementRead, type SettlementRead } from "#core/messaging/lifecycle";
import { recordLeadConsent } from "#core/leads/consent";
import * as Contacts from "#core/messaging/contacts";
import * as Conversations from "#core/messaging/conversations";
import { classifyInbound, revocationInFreeText } from "#core/messaging/keywords";
import * as Consent from "#core/consent/index";
import * as Messages from "#core/messaging/messages";
import { newMessage } from "#core/messaging/messages";
import { throttledAtCarrier } from "#core/messaging/outbound";
import { systemActor } from "#core/auth/actor";
import { DomainError } from "#core/errors";
import { logger } from "#core/observability/index";
import type { Message, MessagePurpose } from "#core/messaging/model";
import { routeOf } from "#core/messaging/number-routes";
import type { NumberRoute } from "#core/messaging/phone-numbers";
import * as MessagingSettingsStore from "#core/messaging/settings";
import { currentAttempt, readMessage } from "#core/messaging/store";
import * as Suppressions from "#core/suppressions/index";
import { ownerOf } from "#core/events/index";
import * as MessagingEvents from "#core/messaging/timeline";
import type { InboundMessage, MessageStatusEvent, ProviderPort, WebhookRequest } from "#core/providers/port";
import { publish } from "#core/queue/messages";
import { nowIso } from "#core/shared/ids";
import { toE164 } from "#core/shared/phone";

/**
 * Provider webhooks. Each request is verified against the provider's signature
 * first (unsigned or wrong: 403), then its organization is found from our own
 * number in it (the number route). Both are idempotent: a status callback only
 * applies when the ranked lifecycle accepts it (a late `sent` never overwrites
 * `delivered`), and an inbound message is claimed by its provider id.
 */
export const CarrierCallbacks = { messageStatus, inboundMessage };

/** A message's status callback. Its own function (as `inboundMessage`), so that each webhook's bundle holds only its own. */
export async function messageStatus(providerName: string, request: WebhookRequest): Promise<void> {
  const provider = verifiedProvider(providerName, request);
  const parameters = new URL(request.url).searchParams;
  const ours = {
    messageId: parameters.get("messageId") ?? undefined,
    organizationId: parameters.get("organizationId"),
  };
  for (const event of provider.parseStatusCallback(request)) {
    if (event.type !== "message.status") continue;
    await applyStatus(provider, event, ours);
  }
}

/** An inbound message, claimed by its provider id. */
export async function inboundMessage(providerName: string, request: WebhookRequest): Promise<void> {
  const provider = verifiedProvider(providerName, request);
  await receive(provider, provider.parseInboundMessage(request));
}

/**
 * The callback URL we gave the carrier names the message and (since issue 27) its organization: the message is read
 * at once, and applies only when it was sent from the number the callback is about (what the number's route would have
 * told). A message sent before the URL named its organization finds it by the number's route. A callback without our
 * message id (not one we asked for) is left to the receipt check, which asks the carrier (core/messaging/receipts.ts).
 */
async function applyStatus(
  provider: ProviderPort,
  event: MessageStatusEvent,
  ours: { messageId: string | undefined; organizationId: string | null },
): Promise<void> {
  const id = ours.messageId;
  if (!id) return;
  const direct = ours.organizationId || undefined;
  const organizationId = direct ?? (await routeOf(event.from))?.organizationId;
  if (!organizationId) return;
  const { message, settlement } = await receiptReads(organizationId, id, event.status);
  if (!message || message.direction !== "Outbound") return;
  if (direct && (!event.from || message.fromPhoneNumber !== toE164(event.from))) return;
  // Telnyx signs the body, not our URL: the organization the URL names is trusted only for a message the carrier's id
  // already ties to this callback; before that id is stored (a callback racing the send), the number's route must agree.
  if (direct && !message.providerMessageId && (await routeOf(event.from))?.organizationId !== direct) return;
  if (message.providerMessageId && message.providerMessageId !== event.providerMessageId) return;
  if (await throttledAtCarrier(organizationId, message, event)) return;
  // Only the current attempt's callback applies: a late one of an attempt refused for throttling (the message queued
  // again, its id cleared, maybe claimed again before its new id is stored) would end the retry it is not about.
  await MessageLifecycle.applyReceipt(
    organizationId,
    message,
    event,
    currentAttempt(event.providerMessageId),
    settlement,
  );
}

/**
 * The message a receipt is about; when the receipt would end it charged (Delivered, Undelivered), also what settling
 * its hold reads (the prices and the hold), in the same consistent BatchGetItem instead of a second read after (issue 27). Read before the
 * message's conditional write as `finish` would read them; a hold that changes before the write fails that write's
 * condition and is planned again from a fresh read.
 */
async function receiptReads(
  organizationId: string,
  messageId: string,
  status: Message["status"],
): Promise<{ message: Message | undefined; settlement?: SettlementRead }> {
  if (!endsCharged(status)) return { message: await readMessage(organizationId, messageId) };
  const [settlement] = await readTogether([settlementRead(organizationId, messageId)]);
  return { message: settlement.message, settlement };
}

/** Stores an inbound message once (claimed by provider id), then handles compliance keywords or the trigger. */
async function receive(provider: ProviderPort, inbound: InboundMessage): Promise<void> {
  const route = await routeOf(inbound.to);
  const from = toE164(inbound.from);
  if (!route || route.releasedAt || !from) return;
  const organizationId = route.organizationId;
  const leadId = await Contacts.leadIdByPhone(organizationId, from);
  const conversation = await Conversations.ensure(organizationId, from, leadId);
  const now = nowIso();
  const message = newMessage({
    conversationId: conversation.id,
    leadId: leadId ?? conversation.leadId ?? null,
    assignedUserId: conversation.assignedUserId,
    direction: "Inbound",
    status: "Received",
    body: inbound.body,
    media: inbound.media.map((item) => ({ url: item.url, contentType: item.contentType })),
    fromPhoneNumber: from,
    toPhoneNumber: route.phoneNumber,
    fromPhoneNumberId: route.phoneNumberId,
    provider: provider.name,
    providerMessageId: inbound.providerMessageId,
    receivedAt: now,
    createdBy: "contact",
  });
  // Claimed by its provider id, stored with its MessageReceived event: a redelivered webhook finds the claim and stops.
  const claim = { Put: inboundClaimPut(organizationId, provider.name, inbound.providerMessageId, message.id) };
  if (!(await MessageLifecycle.create(organizationId, message, null, {}, claim))) return;
  // The carrier's own keyword handling (Twilio Advanced Opt-Out's OptOutType) decides first, and it already answered the contact.
  const keyword = inbound.carrierKeyword
    ? { kind: inbound.carrierKeyword.kind, keyword: inbound.carrierKeyword.word }
    : classifyInbound(inbound.body, (await MessagingSettingsStore.read(organizationId)).keywords);
  const ordinary = keyword.kind === "Message";
  await Conversations.noteMessage(organizationId, conversation.id, {
    direction: "Inbound",
    body: message.body,
    at: now,
    unread: ordinary,
  });
  if (!conversation.phoneNumberId)
    await Conversations.setSender(organizationId, conversation.id, {
      id: route.phoneNumberId,
      phoneNumber: route.phoneNumber,
    });
  const contact = {
    organizationId,
    message,
    route,
    leadId: message.leadId ?? null,
    carrierReplied: inbound.carrierKeyword !== undefined,
  };
  if (keyword.kind === "OptOut") return optOut(contact, keyword.keyword!);
  if (keyword.kind === "OptIn") return optIn(contact, keyword.keyword!);
  if (keyword.kind === "Help") return help(contact);
  if (revocationInFreeText(message.body)) await flagRevocation(contact);
  await publish(MessageReceived, organizationId, {
    messageId: message.id,
    conversationId: message.conversationId,
    leadId: message.leadId ?? null,
    from,
    to: route.phoneNumber,
    body: message.body,
  });
}

/** `carrierReplied`: the carrier already sent the contact its confirmation or help text; we send no second one. */
type InboundContact = {
  organizationId: string;
  message: Message;
  route: NumberRoute;
  leadId: string | null;
  carrierReplied: boolean;
};

async function optOut(contact: InboundContact, keyword: string): Promise<void> {
  const { organizationId, message, leadId } = contact;
  const at = message.receivedAt ?? nowIso();
  if (leadId)
    await recordLeadConsent(organizationId, leadId, { kind: "OptOut", at, phoneNumber: message.fromPhoneNumber! });
  const { created } = await Suppressions.add(organizationId, {
    phoneNumber: message.fromPhoneNumber!,
    reason: "OptOutKeyword",
    ...(leadId ? { leadId } : {}),
  });
  // Counted once per contact put on the list, against the number they wrote to (its opt-out rate: number health).
  if (created) await NumberHealth.recordOptOut(organizationId, contact.route.phoneNumberId);
  await consentEvent(contact, "ContactOptedOut", `Opted out by replying ${keyword}.`, "OptedOut");
  await publish(LeadOptedOut, organizationId, { leadId, phoneNumber: message.fromPhoneNumber!, keyword, at });
  // One confirmation: only when this STOP is what put the number on the list.
  if (created)
    await reply(
      contact,
      "OptOutConfirmation",
      (await MessagingSettingsStore.read(organizationId)).optOutConfirmationText,
    );
}

async function optIn(contact: InboundContact, keyword: string): Promise<void> {
  const { organizationId, message, leadId } = contact;
  if (leadId)
    await recordLeadConsent(organizationId, leadId, {
      kind: "OptIn",
      at: message.receivedAt ?? nowIso(),
      phoneNumber: message.fromPhoneNumber!,
    });
  await Suppressions.delete(
    organizationId,
    message.fromPhoneNumber!,
    undefined,
    `removed from the suppression list: the contact replied ${keyword}`,
  );
  await consentEvent(contact, "ContactOptedIn", `Opted in by replying ${keyword}.`, "OptedIn");
  await reply(contact, "OptInConfirmation", (await MessagingSettingsStore.read(organizationId)).optInConfirmationText);
}

async function help(contact: InboundContact): Promise<void> {
  const { organizationId, message, leadId } = contact;
  if (leadId) await recordLeadConsent(organizationId, leadId, { kind: "Help", at: message.receivedAt ?? nowIso() });
  await consentEvent(contact, "ContactHelpRequested", "Asked for help (HELP/INFO).", "HelpRequested");
  await reply(contact, "HelpReply", (await MessagingSettingsStore.read(organizationId)).helpText);
}

/**
 * A message that asks in its own words to stop: kept as the lead's consent evidence and recorded for a person to
 * review (docs/compliance.md); the contact is not opted out automatically, as a keyword would be.
 */
async function flagRevocation(contact: InboundContact): Promise<void> {
  const { organizationId, message, leadId } = contact;
  if (leadId) {
    await Consent.addEvidence(organizationId, {
      leadId,
      kind: "RevocationFlagged",
      at: message.receivedAt ?? nowIso(),
      outcome: null,
      reason: "Free-text request to stop; needs review.",
      certificate: null,
      record: null,
      recordedBy: `contact:${message.fromPhoneNumber}`,
      text: message.body,
    });
  }
  await consentEvent(
    contact,
    "ContactRevocationFlagged",
    "Asked in free text to stop being contacted: review and opt out if so.",
    "RevocationFlaggedForReview",
  );
}

async function consentEvent(
  contact: InboundContact,
  eventType: "ContactOptedOut" | "ContactOptedIn" | "ContactHelpRequested" | "ContactRevocationFlagged",
  description: string,
  complianceAction: string,
) {
  await MessagingEvents.record(contact.organizationId, {
    eventType,
    eventCategory: "Compliance",
    description,
    complianceAction,
    conversationId: contact.message.conversationId,
    ...(contact.leadId ? { leadId: contact.leadId } : {}),
    ...ownerOf(contact.message),
    relatedEntityType: "Message",
    relatedEntityId: contact.message.id,
    direction: "Inbound",
    fromPhoneNumber: contact.message.fromPhoneNumber!,
    toPhoneNumber: contact.route.phoneNumber,
    receivedAt: contact.message.receivedAt!,
  });
}

/**
 * A compliance reply from the number the contact texted, through `Messages.send` (its schema, sender and wallet checks);
 * its purpose sends it even to an opted-out number, outside quiet hours. A refusal (a wallet that cannot pay, a number
 * the API cannot text) is logged, and the inbound message is still processed.
 */
async function reply(contact: InboundContact, purpose: MessagePurpose, body: string): Promise<void> {
  const { organizationId, message, route } = contact;
  if (contact.carrierReplied) return;
  try {
    await Messages.send(
      systemActor(organizationId),
      { to: message.fromPhoneNumber!, body, fromPhoneNumberId: route.phoneNumberId },
      { origin: { createdBy: "system", purpose } },
    );
  } catch (error) {
    if (!(error instanceof DomainError)) throw error;
    logger.warn("A compliance reply was refused (wallet, sender or number)", {
      organizationId,
      purpose,
      error: error.message,
    });
  }
}
