/**
 * The single-table key layout, in one place (docs/data-model.md mirrors it).
 *
 * Every tenant item's partition key begins with `ORG#<organizationId>`, and the
 * only way to build one is from an organization id, so an operation holding an
 * actor of organization A cannot form a key of organization B. The few keys that
 * are not tenant data (rate-limit windows for anonymous IPs, the operator's
 * organization index) say so below.
 */

import { ulidCeiling, ulidFloor } from "#core/shared/ids";

export type Key = { pk: string; sk: string };

/**
 * Sort-key bounds (inclusive, for `BETWEEN`) of the items under `prefix` whose id is a ULID created in
 * [fromMs, toMs]: leads and events are keyed by such ids, so a creation window is a key range.
 */
export function createdWithin(prefix: string, fromMs: number, toMs: number): { lower: string; upper: string } {
  return { lower: `${prefix}${ulidFloor(fromMs)}`, upper: `${prefix}${ulidCeiling(Math.max(fromMs, toMs))}` };
}

const org = (organizationId: string) => `ORG#${organizationId}`;

/**
 * Sort keys of the ordered-list indexes (gsi4-gsi6) are `<value>\0<id>`: the
 * NUL (refused in every text field) sorts below every character, so a value
 * that is a prefix of another sorts first, and equal values fall back to the id,
 * as the list comparator does (core/db/list.ts). A missing value is the empty
 * string, first, as the comparator puts missing values first.
 */
const ordered = (value: string, id: string) => `${value}\u0000${id}`;

/** Text values in an index key: the first 100 code points (≤ 400 bytes, well inside the 1 KB key limit). */
const sortText = (value: string | null | undefined) => [...(value ?? "")].slice(0, 100).join("");

/**
 * A decimal string as text that sorts in numeric order: missing `0`, negative
 * `1`, zero or positive `2`; then the length of the whole part and its digits,
 * then the fraction without trailing zeros (so `0.10` and `0.1` are one value).
 * Negative values complement every digit and end in `~`, so larger magnitudes
 * sort first and `-5` after `-5.5`.
 */
export function decimalSortText(value: string | number | null | undefined): string {
  if (value === null || value === undefined || value === "") return "0";
  const text = String(value);
  const [whole = "0", fraction = ""] = text.replace("-", "").split(".");
  const digits = whole.replace(/^0+(?=\d)/, "");
  const trimmed = fraction.replace(/0+$/, "");
  const zero = /^0*$/.test(digits) && trimmed === "";
  const length = String(digits.length).padStart(3, "0");
  if (!text.startsWith("-") || zero) return `2${length}${digits}${trimmed}`;
  const complement = (part: string) => part.replace(/\d/g, (digit) => String(9 - Number(digit)));
  return `1${String(999 - digits.length).padStart(3, "0")}${complement(digits)}${complement(trimmed)}~`;
}

export const keys = {
  organization: (organizationId: string): Key => ({ pk: org(organizationId), sk: "PROFILE" }),
  /** Operator-only index of organizations (admin CLI `list-orgs`), on gsi1. */
  organizationIndex: (createdAt: string, organizationId: string) => ({
    gsi1pk: "ORGANIZATIONS",
    gsi1sk: `${createdAt}#${organizationId}`,
  }),

  /** API keys embed their organization (`sk_<org>_<secret>`), so lookup is one GetItem. */
  apiKey: (organizationId: string, keyHash: string): Key => ({ pk: org(organizationId), sk: `APIKEY#${keyHash}` }),

  automation: (organizationId: string, automationId: string): Key => ({
    pk: org(organizationId),
    sk: `AUTOMATION#${automationId}`,
  }),
  automationPrefix: (organizationId: string) => ({ pk: org(organizationId), skPrefix: "AUTOMATION#" }),
  /** The definition a run executes: one immutable copy per automation version, written when a run first needs it. */
  automationVersion: (organizationId: string, automationId: string, version: number): Key => ({
    pk: org(organizationId),
    sk: `AUTOVERSION#${automationId}#${String(version).padStart(8, "0")}`,
  }),
  /** Index of enabled triggers by type (fan-out reads `AUTOTRIGGER#<type>#`), written with the automation. */
  automationTrigger: (organizationId: string, triggerType: string, automationId: string, triggerId: string): Key => ({
    pk: org(organizationId),
    sk: `AUTOTRIGGER#${triggerType}#${automationId}#${triggerId}`,
  }),
  automationTriggerPrefix: (organizationId: string, triggerType: string) => ({ pk: org(organizationId), skPrefix: `AUTOTRIGGER#${triggerType}#` }),
  /**
   * gsi3 (sparse): Schedule triggers by their next firing. Not tenant data: the
   * sweeper's operator index across organizations, sharded by automation id.
   */
  dueSchedule: (shard: number, dueAt: string, organizationId: string, automationId: string, triggerId: string) => ({
    gsi3pk: `DUESCHEDULES#${shard}`,
    gsi3sk: `${dueAt}#${organizationId}#${automationId}#${triggerId}`,
  }),
  /** Automation runs: one automation's runs, newest first by ULID. */
  automationRun: (organizationId: string, automationId: string, runId: string): Key => ({
    pk: org(organizationId),
    sk: `RUN#${automationId}#${runId}`,
  }),
  automationRunPrefix: (organizationId: string, automationId: string) => ({ pk: org(organizationId), skPrefix: `RUN#${automationId}#` }),
  /** One run per (automation, trigger event): claimed with a conditional put in the run's own transaction. */
  automationRunClaim: (organizationId: string, automationId: string, triggerEventId: string): Key => ({
    pk: org(organizationId),
    sk: `RUNKEY#${automationId}#${triggerEventId}`,
  }),
  /** gsi1: every run of the organization by creation time (analytics automationHealth). */
  runsByOrganization: (organizationId: string, createdAt = "", runId = "") => ({
    gsi1pk: `${org(organizationId)}#RUNS`,
    gsi1sk: createdAt ? `${createdAt}#${runId}` : "",
  }),
  /** gsi2 (sparse): the unfinished runs of one automation (disabling cancels them); removed when a run ends. */
  activeRunsByAutomation: (organizationId: string, automationId: string, runId = "") => ({
    gsi2pk: `${org(organizationId)}#AUTOMATION#${automationId}#ACTIVERUNS`,
    gsi2sk: `RUN#${runId}`,
  }),
  /**
   * gsi3 (sparse): unfinished runs by when they need attention (a wait ending, or a
   * stalled step to resend). Operator index across organizations, sharded by run id.
   */
  dueRun: (shard: number, dueAt: string, organizationId: string, automationId: string, runId: string) => ({
    gsi3pk: `DUERUNS#${shard}`,
    gsi3sk: `${dueAt}#${organizationId}#${automationId}#${runId}`,
  }),

  /**
   * Lead sources. The item holds the hash of the source key (`lk_<org>_<secret>`), so
   * `sourceId` + key resolve in one GetItem and a rotation replaces the hash atomically.
   */
  source: (organizationId: string, sourceId: string): Key => ({ pk: org(organizationId), sk: `SOURCE#${sourceId}` }),
  sourcePrefix: (organizationId: string) => ({ pk: org(organizationId), skPrefix: "SOURCE#" }),

  /** Leads: the sort key is the ULID, so the partition read backwards is newest first. */
  lead: (organizationId: string, leadId: string): Key => ({ pk: org(organizationId), sk: `LEAD#${leadId}` }),
  leadPrefix: (organizationId: string) => ({ pk: org(organizationId), skPrefix: "LEAD#" }),
  /** gsi1: one source's leads, newest first. */
  leadsBySource: (organizationId: string, sourceId: string, leadId = "") => ({
    gsi1pk: `${org(organizationId)}#SOURCE#${sourceId}#LEADS`,
    gsi1sk: `LEAD#${leadId}`,
  }),
  /** gsi2: the leads of one E.164 phone number (inbound messages and calls find their lead). */
  leadsByPhone: (organizationId: string, e164: string, leadId = "") => ({
    gsi2pk: `${org(organizationId)}#LEADPHONE#${e164}`,
    gsi2sk: `LEAD#${leadId}`,
  }),
  /** gsi4: the organization's leads by name (first and last name as the list shows it). */
  leadsByName: (organizationId: string, name: string, leadId: string) => ({
    gsi4pk: `${org(organizationId)}#LEADS#NAME`,
    gsi4sk: ordered(sortText(name), leadId),
  }),
  leadsByNamePartition: (organizationId: string) => ({ gsi4pk: `${org(organizationId)}#LEADS#NAME` }),
  /** gsi5: the organization's leads by metadata.price (decimalSortText). */
  leadsByPrice: (organizationId: string, price: string | number | null, leadId: string) => ({
    gsi5pk: `${org(organizationId)}#LEADS#PRICE`,
    gsi5sk: ordered(decimalSortText(price), leadId),
  }),
  leadsByPricePartition: (organizationId: string) => ({ gsi5pk: `${org(organizationId)}#LEADS#PRICE` }),
  /** gsi6: the organization's leads by modifiedAt (never modified first). */
  leadsByModified: (organizationId: string, modifiedAt: string | null, leadId: string) => ({
    gsi6pk: `${org(organizationId)}#LEADS#MODIFIED`,
    gsi6sk: ordered(modifiedAt ?? "", leadId),
  }),
  leadsByModifiedPartition: (organizationId: string) => ({ gsi6pk: `${org(organizationId)}#LEADS#MODIFIED` }),
  /** gsi7: the leads of one processing status, in createdAt order (ULID ids). */
  leadsByStatus: (organizationId: string, processingStatus: string, leadId = "") => ({
    gsi7pk: `${org(organizationId)}#LEADS#STATUS#${processingStatus}`,
    gsi7sk: `LEAD#${leadId}`,
  }),
  /**
   * gsi3 (sparse): leads still Pending, for the sweep that republishes a lead whose
   * queue message was lost. Not tenant data: an operator index across organizations,
   * sharded so no partition is hot; the attributes are removed once the lead is settled.
   */
  pendingLead: (shard: number, createdAt: string, organizationId: string, leadId: string) => ({
    gsi3pk: `PENDINGLEADS#${shard}`,
    gsi3sk: `${createdAt}#${organizationId}#${leadId}`,
  }),
  /** Dedupe claims on a normalised natural key (conditional writes make them race-free). */
  leadClaim: (organizationId: string, claim: LeadClaim): Key => ({
    pk: org(organizationId),
    sk:
      "sourceId" in claim
        ? `LEADKEY#SOURCE#${claim.sourceId}#${claim.kind === "sellerLeadId" ? "SELLER" : "EXTERNAL"}#${claim.value}`
        : `LEADKEY#${claim.kind.toUpperCase()}#${claim.value}`,
  }),

  /** Suppressed (opted-out) phone numbers; owned by messaging, read by lead processing. */
  suppression: (organizationId: string, e164: string): Key => ({ pk: org(organizationId), sk: `SUPPRESSION#${e164}` }),
  suppressionPrefix: (organizationId: string) => ({ pk: org(organizationId), skPrefix: "SUPPRESSION#" }),
  /** gsi4: the suppression list by when each number was added (the list's default order). */
  suppressionsByCreated: (organizationId: string, createdAt: string, e164: string) => ({
    gsi4pk: `${org(organizationId)}#SUPPRESSIONS#CREATED`,
    gsi4sk: ordered(createdAt, e164),
  }),
  suppressionsByCreatedPartition: (organizationId: string) => ({ gsi4pk: `${org(organizationId)}#SUPPRESSIONS#CREATED` }),

  /**
   * Event records (spec 2.5). The item lives under the organization, newest first by
   * its ULID; gsi1 lists one lead's events in order.
   */
  event: (organizationId: string, eventId: string): Key => ({ pk: org(organizationId), sk: `EVENT#${eventId}` }),
  eventPrefix: (organizationId: string) => ({ pk: org(organizationId), skPrefix: "EVENT#" }),
  eventsByLead: (organizationId: string, leadId: string, eventId = "") => ({
    gsi1pk: `${org(organizationId)}#LEAD#${leadId}#EVENTS`,
    gsi1sk: `EVENT#${eventId}`,
  }),
  /** gsi7: the events of one type (lower-cased: list filters compare case-insensitively), in createdAt order (ULID ids). */
  eventsByType: (organizationId: string, eventType: string, eventId = "") => ({
    gsi7pk: `${org(organizationId)}#EVENTS#TYPE#${eventType.toLowerCase()}`,
    gsi7sk: `EVENT#${eventId}`,
  }),

  /** A2A tasks of the `/a2a` agent, kept for a while (TTL) so `tasks/get` can read them back. */
  a2aTask: (organizationId: string, taskId: string): Key => ({ pk: org(organizationId), sk: `A2ATASK#${taskId}` }),
  a2aTaskPrefix: (organizationId: string) => ({ pk: org(organizationId), skPrefix: "A2ATASK#" }),

  /** Phone numbers the organization owns at the provider. */
  phoneNumber: (organizationId: string, phoneNumberId: string): Key => ({ pk: org(organizationId), sk: `PHONENUMBER#${phoneNumberId}` }),
  phoneNumberPrefix: (organizationId: string) => ({ pk: org(organizationId), skPrefix: "PHONENUMBER#" }),
  /**
   * Number → organization route (not tenant data): provider webhooks name only our
   * number (To of an inbound message, From of a status callback), so this is the one
   * lookup that cannot start from an organization. One item per E.164 number, claimed
   * with a conditional put, so a number belongs to at most one organization.
   */
  numberRoute: (e164: string): Key => ({ pk: `NUMBER#${e164}`, sk: "ROUTE" }),

  /** Conversations: one per contact phone; the pointer item makes "conversation of this phone" race-free. */
  conversation: (organizationId: string, conversationId: string): Key => ({ pk: org(organizationId), sk: `CONVERSATION#${conversationId}` }),
  conversationPrefix: (organizationId: string) => ({ pk: org(organizationId), skPrefix: "CONVERSATION#" }),
  conversationByPhone: (organizationId: string, e164: string): Key => ({ pk: org(organizationId), sk: `CONVERSATIONPHONE#${e164}` }),
  /** gsi4: the organization's conversations by their last message (none yet first). */
  conversationsByLastMessage: (organizationId: string, lastMessageAt: string | null, conversationId: string) => ({
    gsi4pk: `${org(organizationId)}#CONVERSATIONS#LASTMESSAGE`,
    gsi4sk: ordered(lastMessageAt ?? "", conversationId),
  }),
  conversationsByLastMessagePartition: (organizationId: string) => ({ gsi4pk: `${org(organizationId)}#CONVERSATIONS#LASTMESSAGE` }),
  /**
   * gsi7 (sparse): the unread conversations by their last message (the inbox). The partition key is set by an
   * inbound message and removed when the conversation is read; the sort key follows every message.
   */
  unreadConversations: (organizationId: string, lastMessageAt: string | null, conversationId: string) => ({
    gsi7pk: `${org(organizationId)}#CONVERSATIONS#UNREAD`,
    gsi7sk: ordered(lastMessageAt ?? "", conversationId),
  }),

  /** Messages (outbound and inbound); gsi1 lists one conversation's messages in order. */
  message: (organizationId: string, messageId: string): Key => ({ pk: org(organizationId), sk: `MESSAGE#${messageId}` }),
  messagesByConversation: (organizationId: string, conversationId: string, messageId = "") => ({
    gsi1pk: `${org(organizationId)}#CONVERSATION#${conversationId}#MESSAGES`,
    gsi1sk: `MESSAGE#${messageId}`,
  }),
  /** Provider message id → our message (status callbacks, inbound dedupe); a conditional put claims it. */
  providerMessage: (organizationId: string, provider: string, providerMessageId: string): Key => ({
    pk: org(organizationId),
    sk: `PROVIDERMESSAGE#${provider}#${providerMessageId}`,
  }),
  /**
   * gsi3 (sparse): messages waiting for a time (far-future scheduled sends, receipt
   * timeouts). Not tenant data: the sweeper's operator index across organizations,
   * sharded by message id; the attributes are removed once the wait is over.
   */
  dueMessage: (shard: number, dueAt: string, organizationId: string, messageId: string) => ({
    gsi3pk: `DUEMESSAGES#${shard}`,
    gsi3sk: `${dueAt}#${organizationId}#${messageId}`,
  }),
  /**
   * gsi3 (sparse): calls holding money (outbound placed, inbound forwarded) by the
   * time their final status is overdue (core/calls/sweeper.ts). Not tenant data: the
   * sweeper's operator index across organizations, sharded by call id; on the call
   * item only, removed in the write that makes the call final.
   */
  dueCall: (shard: number, dueAt: string, organizationId: string, callId: string) => ({
    gsi3pk: `DUECALLS#${shard}`,
    gsi3sk: `${dueAt}#${organizationId}#${callId}`,
  }),
  /**
   * gsi3 (sparse): open wallet holds (reservations) by the time the hold sweeper
   * (core/operations/hold-sweeper.ts) looks at their owner. Not tenant data: the
   * sweeper's operator index across organizations, sharded by reservation id; on
   * the reservation item only, removed in the write that settles or releases it.
   */
  dueHold: (shard: number, dueAt: string, organizationId: string, reservationId: string) => ({
    gsi3pk: `DUEHOLDS#${shard}`,
    gsi3sk: `${dueAt}#${organizationId}#${reservationId}`,
  }),
  /** Messaging settings of an organization (quiet hours, help and confirmation texts). */
  messagingSettings: (organizationId: string): Key => ({ pk: org(organizationId), sk: "SETTINGS#MESSAGING" }),

  /** Billing (prepaid wallet): the wallet, its price list, ledger entries (newest first by ULID) and open reservations. */
  wallet: (organizationId: string): Key => ({ pk: org(organizationId), sk: "WALLET" }),
  priceList: (organizationId: string): Key => ({ pk: org(organizationId), sk: "SETTINGS#PRICES" }),
  ledgerEntry: (organizationId: string, entryId: string): Key => ({ pk: org(organizationId), sk: `LEDGER#${entryId}` }),
  ledgerPrefix: (organizationId: string) => ({ pk: org(organizationId), skPrefix: "LEDGER#" }),
  /** A wallet top-up asked for through the payment provider (pending until its signed payment event arrives). */
  topUp: (organizationId: string, topUpId: string): Key => ({ pk: org(organizationId), sk: `TOPUP#${topUpId}` }),
  /** One per payment received (keyed by the provider's payment id), put in the credit's transaction so it is credited once; holds what was refunded. */
  payment: (organizationId: string, paymentId: string): Key => ({ pk: org(organizationId), sk: `PAYMENT#${paymentId}` }),
  /** One per payment dispute (chargeback), put in its debit's transaction so it is taken once; its state says whether it was closed. */
  paymentDispute: (organizationId: string, disputeId: string): Key => ({ pk: org(organizationId), sk: `DISPUTE#${disputeId}` }),
  /** gsi5: the ledger by amount (decimalSortText; entries never change). */
  ledgerByAmount: (organizationId: string, amount: string, entryId: string) => ({
    gsi5pk: `${org(organizationId)}#LEDGER#AMOUNT`,
    gsi5sk: ordered(decimalSortText(amount), entryId),
  }),
  ledgerByAmountPartition: (organizationId: string) => ({ gsi5pk: `${org(organizationId)}#LEDGER#AMOUNT` }),
  /** One per message or call whose estimated cost is held; keyed by that message or call id. */
  reservation: (organizationId: string, reservationId: string): Key => ({ pk: org(organizationId), sk: `RESERVATION#${reservationId}` }),
  /** One per phone number and billing month (`2026-03`) whose fee was charged, put in the charge's transaction so it happens once. */
  phoneNumberFee: (organizationId: string, phoneNumberId: string, month: string): Key => ({
    pk: org(organizationId),
    sk: `NUMBERFEE#${phoneNumberId}#${month}`,
  }),

  /** Calls (outbound and inbound). */
  call: (organizationId: string, callId: string): Key => ({ pk: org(organizationId), sk: `CALL#${callId}` }),
  /**
   * A copy of a call under each of its two numbers (endpoint 14: calls from or to a
   * number), written in the same transaction as the call, newest first by call id.
   */
  callByPhone: (organizationId: string, e164: string, callId: string): Key => ({ pk: org(organizationId), sk: `CALLPHONE#${e164}#${callId}` }),
  callByPhonePrefix: (organizationId: string, e164: string) => ({ pk: org(organizationId), skPrefix: `CALLPHONE#${e164}#` }),
  /** Provider call id → our call (status callbacks); a conditional put claims it (inbound calls are created once). */
  providerCall: (organizationId: string, provider: string, providerCallId: string): Key => ({
    pk: org(organizationId),
    sk: `PROVIDERCALL#${provider}#${providerCallId}`,
  }),

  /**
   * Analytics (core/analytics): per-hour (`H`, bucket `2026-01-05T14`), per-day
   * (`D`, bucket `2026-01-05`) and per-ISO-week (`W`, bucket = its Monday
   * `2026-01-05`) counters, UTC; one item per lead counted (its
   * creation source and first response, sorted by lead id = creation time); one
   * item per conversation with unread messages; first-time milestones.
   */
  analyticsRollup: (organizationId: string, level: "H" | "D" | "W", bucket: string): Key => ({ pk: org(organizationId), sk: `ANALYTICS#${level}#${bucket}` }),
  /** The response-time histograms of one rollup bucket, sorted right after it (one range query reads both). */
  analyticsHistogram: (organizationId: string, level: "H" | "D" | "W", bucket: string): Key => ({ pk: org(organizationId), sk: `ANALYTICS#${level}#${bucket}#HIST` }),
  analyticsLead: (organizationId: string, leadId: string): Key => ({ pk: org(organizationId), sk: `ANALYTICS#LEAD#${leadId}` }),
  analyticsUnread: (organizationId: string, conversationId: string): Key => ({ pk: org(organizationId), sk: `ANALYTICS#UNREAD#${conversationId}` }),
  analyticsMilestones: (organizationId: string): Key => ({ pk: org(organizationId), sk: "ANALYTICS#MILESTONES" }),
  /** Marker of an event counted by the stream aggregator (expires by TTL once the stream can no longer redeliver it). */
  analyticsCounted: (organizationId: string, eventId: string): Key => ({ pk: org(organizationId), sk: `ANALYTICS#COUNTED#${eventId}` }),

  /** Fixed 60 s windows; the item expires by TTL soon after its window. */
  rateLimitWindow: (partition: RateLimitPartition, windowStart: number): Key =>
    partition.kind === "ip" || partition.kind === "user"
      ? // Not tenant data: anonymous traffic and users without an organization have none.
        { pk: `${partition.kind.toUpperCase()}#${partition.id}`, sk: `RATE#${windowStart}` }
      : { pk: org(partition.organizationId), sk: `RATE#${partition.kind}#${windowStart}` },

  /** Webhook endpoints of the organization (core/webhooks); the item holds the signing secrets. */
  webhookEndpoint: (organizationId: string, endpointId: string): Key => ({ pk: org(organizationId), sk: `WEBHOOKENDPOINT#${endpointId}` }),
  webhookEndpointPrefix: (organizationId: string) => ({ pk: org(organizationId), skPrefix: "WEBHOOKENDPOINT#" }),
  /** One delivery of one webhook message (an event, or a test ping) to one endpoint; its id is the `webhook-id`. */
  webhookDelivery: (organizationId: string, endpointId: string, messageId: string): Key => ({
    pk: org(organizationId),
    sk: `WEBHOOKDELIVERY#${endpointId}#${messageId}`,
  }),
  /** The attempt log of one endpoint, newest first by ULID. */
  webhookAttempt: (organizationId: string, endpointId: string, attemptId: string): Key => ({
    pk: org(organizationId),
    sk: `WEBHOOKATTEMPT#${endpointId}#${attemptId}`,
  }),
  webhookAttemptPrefix: (organizationId: string, endpointId: string) => ({ pk: org(organizationId), skPrefix: `WEBHOOKATTEMPT#${endpointId}#` }),
  /**
   * gsi3 (sparse): webhook deliveries whose next retry is further away than an SQS delay allows. Not tenant
   * data: the retry schedule's operator index across organizations, sharded; on the delivery item, removed when
   * the retry is re-published. The id part is `<endpointId>:<messageId>`.
   */
  dueWebhookDelivery: (shard: number, dueAt: string, organizationId: string, endpointId: string, messageId: string) => ({
    gsi3pk: `DUEWEBHOOKS#${shard}`,
    gsi3sk: `${dueAt}#${organizationId}#${endpointId}:${messageId}`,
  }),

  /** Idempotency records of write routes, kept 24 h. */
  idempotency: (organizationId: string, scope: string, idempotencyKey: string): Key => ({
    pk: org(organizationId),
    sk: `IDEMPOTENCY#${scope}#${idempotencyKey}`,
  }),

  /** The last run of one schedule (for `admin status`). Not tenant data: one item per schedule of the stage. */
  scheduleRun: (scheduleName: string): Key => ({ pk: "OPERATIONS", sk: `SCHEDULERUN#${scheduleName}` }),
  scheduleRunPrefix: () => ({ pk: "OPERATIONS", skPrefix: "SCHEDULERUN#" }),
};

export type RateLimitPartition =
  | { kind: "business"; organizationId: string }
  | { kind: "intake"; organizationId: string }
  | { kind: "user"; id: string }
  | { kind: "ip"; id: string };

/** A normalised key two leads can share: phone/email within the organization, seller ids per source. */
export type LeadClaim =
  | { kind: "phone" | "email"; value: string }
  | { kind: "sellerLeadId" | "externalId"; sourceId: string; value: string };

/** The entity names stored in the `entity` attribute of every item. */
export const entities = {
  organization: "Organization",
  apiKey: "ApiKey",
  automation: "Automation",
  automationVersion: "AutomationVersion",
  automationTrigger: "AutomationTrigger",
  automationRun: "AutomationRun",
  automationRunClaim: "AutomationRunClaim",
  rateLimitWindow: "RateLimitWindow",
  scheduleRun: "ScheduleRun",
  idempotency: "IdempotencyRecord",
  source: "Source",
  lead: "Lead",
  leadClaim: "LeadClaim",
  suppression: "Suppression",
  event: "Event",
  phoneNumber: "PhoneNumber",
  numberRoute: "NumberRoute",
  conversation: "Conversation",
  conversationByPhone: "ConversationByPhone",
  message: "Message",
  providerMessage: "ProviderMessage",
  messagingSettings: "MessagingSettings",
  a2aTask: "A2ATask",
  wallet: "Wallet",
  priceList: "PriceList",
  ledgerEntry: "LedgerEntry",
  reservation: "Reservation",
  topUp: "TopUp",
  payment: "Payment",
  paymentDispute: "PaymentDispute",
  phoneNumberFee: "PhoneNumberFee",
  call: "Call",
  callByPhone: "CallByPhone",
  providerCall: "ProviderCall",
  analyticsRollup: "AnalyticsRollup",
  analyticsHistogram: "AnalyticsHistogram",
  analyticsLead: "AnalyticsLead",
  analyticsUnread: "AnalyticsUnread",
  analyticsMilestones: "AnalyticsMilestones",
  analyticsCounted: "AnalyticsCounted",
  webhookEndpoint: "WebhookEndpoint",
  webhookDelivery: "WebhookDelivery",
  webhookAttempt: "WebhookAttempt",
} as const;
