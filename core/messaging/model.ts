import { ConsentBasisSchema } from "#core/consent/basis";
import * as v from "valibot";
import { maxChars } from "#core/shared/validation";
import { timestamp, wholeNumber } from "#core/shared/ids";
import { PhoneNumberInput } from "#core/shared/phone-input";
import { MESSAGE_STATUSES } from "#core/shared/status";
import { directions, senderSelectionReasons } from "#core/shared/enums";

/** An MMS attachment (spec 2.5 media). */
export const MediaSchema = v.strictObject({
  url: v.pipe(
    v.string(),
    v.url("Must be an absolute URL."),
    v.regex(/^https?:\/\//i, "Must be an http(s) URL."),
    v.maxLength(2048),
  ),
  contentType: v.pipe(v.string(), v.regex(/^[\w.+-]+\/[\w.+-]+$/, "Must be a media type such as image/jpeg.")),
  size: v.optional(
    v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(5 * 1024 * 1024, "MMS media is limited to 5 MB.")),
  ),
  sha256: v.optional(v.pipe(v.string(), v.regex(/^[0-9a-fA-F]{64}$/, "Must be a hex SHA-256 digest."))),
  fileName: v.optional(v.pipe(v.string(), v.maxLength(255))),
});
export type Media = v.InferOutput<typeof MediaSchema>;

const iso = v.pipe(
  v.string(),
  v.isoTimestamp("Must be an ISO 8601 date-time with a time zone, e.g. 2030-01-01T15:00:00Z."),
);

/** Body of `POST /messages`: SMS (body) or MMS (media), to a lead or a number. */
export const SendMessageSchema = v.pipe(
  v.strictObject({
    leadId: v.optional(v.pipe(v.string(), v.minLength(1), v.maxLength(64))),
    to: v.optional(PhoneNumberInput),
    body: v.optional(v.pipe(v.string(), maxChars(1600, "An SMS body is limited to 1600 characters."))),
    media: v.optional(v.pipe(v.array(MediaSchema), v.maxLength(10, "At most 10 media items."))),
    fromPhoneNumberId: v.optional(v.pipe(v.string(), v.minLength(1), v.maxLength(64))),
    scheduledFor: v.optional(iso),
    /** Send even inside quiet hours (needs messages:overrideQuietHours). */
    overrideQuietHours: v.optional(v.boolean(), false),
    campaignId: v.optional(v.pipe(v.string(), v.maxLength(64))),
  }),
  v.rawCheck(({ dataset, addIssue }) => {
    if (!dataset.typed) return;
    const input = dataset.value;
    if ((input.leadId === undefined) === (input.to === undefined)) {
      addIssue({
        message: "Send to exactly one of leadId or to.",
        path: [{ type: "object", origin: "value", input, key: "to", value: input.to }],
      });
    }
    if (!input.body?.trim() && !input.media?.length) {
      addIssue({
        message: "A message needs a body, media, or both.",
        path: [{ type: "object", origin: "value", input, key: "body", value: input.body }],
      });
    }
  }),
);
export type SendMessageRequest = v.InferOutput<typeof SendMessageSchema>;

/** Body of `POST /messages/{id}/cancel` (optional). */
export const CancelMessageSchema = v.optional(
  v.strictObject({ reason: v.optional(v.pipe(v.string(), v.trim(), maxChars(500))) }),
  {},
);

const nullableString = v.nullish(v.string());

/**
 * Why the service itself sent a message: a compliance reply to a contact's keyword, or an alert to one of the
 * organization's own agents (core/alerts/index.ts). Such a message skips the contact rules that protect leads
 * (consent, quiet hours, frequency caps); the alert is still never sent to a suppressed number.
 */
export const messagePurposes = ["OptOutConfirmation", "OptInConfirmation", "HelpReply", "AgentAlert"] as const;
export type MessagePurpose = (typeof messagePurposes)[number];

/** A message as `GET /messages/{id}` answers it; field names follow the event record (spec 2.5). */
export const MessageSchema = v.object({
  id: v.string(),
  conversationId: v.string(),
  leadId: nullableString,
  /**
   * Whose message it is: the assignee of its conversation (its lead's, unless the conversation was assigned itself)
   * when it was sent or received, kept when the lead moves on (docs/routing.md); null: nobody's.
   */
  assignedUserId: nullableString,
  direction: v.picklist(directions),
  channel: v.picklist(["Sms", "Mms"]),
  status: v.picklist(MESSAGE_STATUSES),
  statusReason: nullableString,
  body: v.string(),
  media: v.array(MediaSchema),
  segments: wholeNumber,
  encoding: v.string(),
  fromPhoneNumberId: nullableString,
  fromPhoneNumber: nullableString,
  toPhoneNumber: v.string(),
  selectionReason: v.nullable(v.picklist(senderSelectionReasons)),
  wasManuallyOverridden: v.boolean(),
  quietHoursOverridden: v.boolean(),
  scheduledFor: nullableString,
  scheduledReason: nullableString,
  complianceAction: nullableString,
  /** The contact rules it passed before it was sent or stopped (docs/compliance.md), e.g. `QuietHours`, `StateWindow:FL`, `OptOut`, `Suppression`, `FrequencyCap:FL`; none for a compliance reply. */
  complianceChecks: v.nullish(v.array(v.string())),
  billingStatus: nullableString,
  billableAmount: v.nullish(v.number()),
  errorCode: nullableString,
  retryCount: wholeNumber,
  nextRetryAt: v.nullish(timestamp),
  provider: nullableString,
  /** The organization's primary provider when it refused this message with a transient error and `provider` (its failover) took it instead. */
  failedOverFrom: nullableString,
  providerMessageId: nullableString,
  providerStatus: nullableString,
  cancelReason: nullableString,
  campaignId: nullableString,
  /** Compliance replies (opt-out/opt-in confirmations, help text) are sent even to an opted-out number. */
  purpose: v.nullish(v.picklist(messagePurposes)),
  queuedAt: v.nullish(timestamp),
  sendingStartedAt: v.nullish(timestamp),
  sentAt: v.nullish(timestamp),
  deliveredAt: v.nullish(timestamp),
  undeliverableAt: v.nullish(timestamp),
  failedAt: v.nullish(timestamp),
  blockedAt: v.nullish(timestamp),
  canceledAt: v.nullish(timestamp),
  receivedAt: v.nullish(timestamp),
  createdAt: timestamp,
  modifiedAt: v.nullish(timestamp),
  createdBy: v.string(),
  actorUserId: nullableString,
  actorDisplayName: nullableString,
  actorEmail: v.nullable(v.pipe(v.string(), v.email())),
  /** What the send relies on (core/consent/basis.ts): a certificate, a consent record, the contact's opt-in, an agent's one-to-one contact; null when none was needed. */
  consentBasis: v.nullish(ConsentBasisSchema),
});
export type Message = v.InferOutput<typeof MessageSchema>;
