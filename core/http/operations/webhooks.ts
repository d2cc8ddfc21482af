import * as v from "valibot";
import { defineOperation } from "#core/http/operation";

const ProviderParams = v.object({ provider: v.pipe(v.string(), v.minLength(1), v.maxLength(32)) });
const signed =
  "Called by the carrier provider (`twilio`, or `simulator` locally), form-encoded and signed with X-Twilio-Signature " +
  "over the full URL and parameters; unsigned or wrongly signed requests are refused with 403. Idempotent.";

export const messageStatusWebhook = defineOperation({
  operationId: "messageStatusWebhook",
  summary: "Provider delivery receipts of outbound messages",
  description: `${signed} Receipts apply in rank order: a late 'sent' never overwrites 'delivered'.`,
  tag: "Webhooks",
  auth: "public",
  params: ProviderParams,
  success: {
    status: 200,
    description: "Acknowledged (empty TwiML)",
    contentType: "text/xml",
    jsonSchema: { type: "string" },
  },
  problems: [403, 404, 429],
});

export const inboundMessageWebhook = defineOperation({
  operationId: "inboundMessageWebhook",
  summary: "Provider delivery of a contact's inbound SMS/MMS",
  description: `${signed} STOP/START/HELP keywords update consent and reply; other messages mark the conversation unread.`,
  tag: "Webhooks",
  auth: "public",
  params: ProviderParams,
  success: {
    status: 200,
    description: "Acknowledged (empty TwiML)",
    contentType: "text/xml",
    jsonSchema: { type: "string" },
  },
  problems: [403, 404, 429],
});
