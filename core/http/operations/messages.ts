import * as v from "valibot";
import { routedBy } from "#core/http/operation";
import { messageRoutes } from "#stacks/definitions";
import { CancelMessageSchema, MessageSchema, SendMessageSchema } from "#core/messaging/model";
import { MessagingSettingsResponseSchema, MessagingSettingsSchema } from "#core/messaging/settings-schema";

const defineOperation = routedBy(messageRoutes);

const MessageIdParams = v.object({ id: v.pipe(v.string(), v.minLength(1), v.maxLength(64)) });

export const sendMessage = /* @__PURE__ */ defineOperation({
  operationId: "sendMessage",
  summary: "Send an SMS, or an MMS with media, to a lead or a number",
  description:
    "Answers 202 with the message `Pending`; read its delivery status later from `GET /messages/{id}` or the events. " +
    "Optional: `fromPhoneNumberId` (manual sender, `wasManuallyOverridden`), `scheduledFor` (a future time at most 30 days ahead), " +
    "`overrideQuietHours` (needs messages:overrideQuietHours). Honours `Idempotency-Key`. " +
    "Give exactly one of `leadId` (an existing lead of the organization) or `to` (a valid number of its numbering plan); otherwise 400. " +
    "The message records its `consentBasis`: the lead's verified consent, or a user's one-to-one message; an API-key send to a lead whose source requires a verified consent it lacks is refused with 422.",
  tag: "Messages",
  auth: "bearer",
  permission: "messages:send",
  body: SendMessageSchema,
  idempotent: true,
  success: { status: 202, description: "Accepted; the message with status Pending", schema: MessageSchema },
  problems: [400, 401, 402, 403, 409, 413, 415, 422, 429],
  example: { leadId: "01JABCDEFGHJKMNPQRSTVWXYZ0", body: "Hi Dana, thanks for your request! Reply STOP to opt out." },
});

export const getMessage = /* @__PURE__ */ defineOperation({
  operationId: "getMessage",
  summary: "Read one message and its delivery status",
  description:
    "An agent whose organization has `agentsSeeAllLeads: false` reads their own messages and those of a conversation assigned to them now; any other message is a 404.",
  tag: "Messages",
  auth: "bearer",
  permission: "messages:read",
  params: MessageIdParams,
  success: { status: 200, description: "The message", schema: MessageSchema },
  problems: [401, 403, 404, 429],
});

export const cancelMessage = /* @__PURE__ */ defineOperation({
  operationId: "cancelMessage",
  summary: "Cancel a scheduled or queued message (409 once it was handed to the provider)",
  tag: "Messages",
  auth: "bearer",
  permission: "messages:send",
  params: MessageIdParams,
  body: CancelMessageSchema,
  bodyRequired: false,
  success: { status: 200, description: "The canceled message", schema: MessageSchema },
  problems: [400, 401, 403, 404, 409, 413, 415, 429],
  example: { reason: "Lead booked a call" },
});

export const getMessagingSettings = /* @__PURE__ */ defineOperation({
  operationId: "getMessagingSettings",
  summary: "The organization's messaging settings: quiet hours, help and confirmation texts",
  tag: "Messages",
  auth: "bearer",
  permission: "messages:read",
  success: {
    status: 200,
    description: "The settings (defaults where never set)",
    schema: MessagingSettingsResponseSchema,
  },
  problems: [401, 403, 429],
});

export const updateMessagingSettings = /* @__PURE__ */ defineOperation({
  operationId: "updateMessagingSettings",
  summary: "Replace the organization's messaging settings",
  description:
    "`quietHours` is the local-time sending window of the recipient (default 08:00-21:00; start inclusive, end exclusive). " +
    "A text meets it when it is queued and again each time it comes back from waiting for its number's slot or a retry: " +
    "one still waiting when the window closes is Scheduled for its next start (`scheduledReason` says why). " +
    "A change made at the same moment as another one is a 409 (read the settings again and retry).",
  tag: "Messages",
  auth: "bearer",
  permission: "phoneNumbers:write",
  body: MessagingSettingsSchema,
  success: { status: 200, description: "The settings", schema: MessagingSettingsResponseSchema },
  problems: [400, 401, 403, 409, 413, 415, 429],
  example: {
    quietHours: { start: "09:00", end: "20:00" },
    helpText: "Acme: call 212-555-0100 for help. Reply STOP to opt out.",
  },
});
