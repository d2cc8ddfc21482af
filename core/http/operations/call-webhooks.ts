import * as v from "valibot";
import { defineOperation } from "#core/http/operation";

const ProviderParams = v.object({ provider: v.pipe(v.string(), v.minLength(1), v.maxLength(32)) });
const signed =
  "Called by the carrier provider (`twilio`, or `simulator` locally), form-encoded and signed with X-Twilio-Signature " +
  "over the full URL and parameters; unsigned or wrongly signed requests are refused with 403. Idempotent.";

export const callStatusWebhook = defineOperation({
  operationId: "callStatusWebhook",
  method: "POST",
  path: "/webhooks/{provider}/calls/status",
  summary: "Provider progress of outbound and inbound calls",
  description: `${signed} Statuses apply in rank order: a late 'ringing' never undoes 'completed'.`,
  tag: "Webhooks",
  auth: "public",
  params: ProviderParams,
  success: { status: 200, description: "Acknowledged (empty TwiML)", contentType: "text/xml", jsonSchema: { type: "string" } },
  problems: [403, 404, 429],
});

export const inboundCallWebhook = defineOperation({
  operationId: "inboundCallWebhook",
  method: "POST",
  path: "/webhooks/{provider}/calls/inbound",
  summary: "Provider notice of a contact calling one of the organization's numbers",
  description: `${signed} Answers the call instructions (TwiML). An inbound call that ends unanswered is a missed call.`,
  tag: "Webhooks",
  auth: "public",
  params: ProviderParams,
  success: { status: 200, description: "Call instructions (TwiML)", contentType: "text/xml", jsonSchema: { type: "string" } },
  problems: [403, 404, 429],
});
