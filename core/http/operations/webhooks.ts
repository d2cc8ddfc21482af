import * as v from "valibot";
import { routedBy } from "#core/http/operation";
import { webhookRoutes } from "#stacks/definitions";

const defineOperation = routedBy(webhookRoutes);

const ProviderParams = v.object({ provider: v.pipe(v.string(), v.minLength(1), v.maxLength(32)) });
/** What every carrier callback answers: an empty TwiML document (Twilio reads it; the others ignore it). */
const acknowledged = {
  status: 200,
  description: "Acknowledged (empty TwiML)",
  contentType: "text/xml",
  jsonSchema: { type: "string" },
} as const;

const signed =
  "Called by the carrier provider (`twilio`, or `simulator` locally), form-encoded and signed with X-Twilio-Signature " +
  "over the full URL and parameters; unsigned or wrongly signed requests are refused with 403. Idempotent.";

// Built apart from the operations (an interpolated string counts as an effect for the bundler; see analytics.ts).
const receiptsDescription = `${signed} Receipts apply in rank order: a late 'sent' never overwrites 'delivered'.`;
const inboundDescription = `${signed} STOP/START/HELP keywords update consent and reply; other messages mark the conversation unread.`;

export const messageStatusWebhook = /* @__PURE__ */ defineOperation({
  operationId: "messageStatusWebhook",
  summary: "Provider delivery receipts of outbound messages",
  description: receiptsDescription,
  tag: "Webhooks",
  auth: "public",
  params: ProviderParams,
  success: acknowledged,
  problems: [403, 404, 429],
});

export const inboundMessageWebhook = /* @__PURE__ */ defineOperation({
  operationId: "inboundMessageWebhook",
  summary: "Provider delivery of a contact's inbound SMS/MMS",
  description: inboundDescription,
  tag: "Webhooks",
  auth: "public",
  params: ProviderParams,
  success: acknowledged,
  problems: [403, 404, 429],
});

export const registrationStatusWebhook = /* @__PURE__ */ defineOperation({
  operationId: "registrationStatusWebhook",
  summary: "Carrier events about the organization's 10DLC brand and campaigns",
  description:
    "Telnyx 10DLC event notifications (`10dlc.brand.update`, `10dlc.campaign.update`; JSON signed with Ed25519, the " +
    "brand's and campaign's `webhookURL`) and Twilio Event Streams A2P events (a webhook sink's CloudEvents, " +
    "`com.twilio.messaging.compliance.brand-registration.*` and `.campaign-registration.*`, signed with X-Twilio-Signature " +
    "and `bodySHA256`); unsigned or wrongly signed requests are refused with 403. The registration it names is read " +
    "again at the carrier at once (not at the next poll), and a change is announced as `carrier_registration.updated`. " +
    "An unknown reference is acknowledged and ignored. Idempotent.",
  tag: "Webhooks",
  auth: "public",
  params: ProviderParams,
  success: acknowledged,
  problems: [403, 404, 429, 502],
});
