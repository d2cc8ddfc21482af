import * as v from "valibot";
import { routedBy } from "#core/http/operation";
import { callWebhookRoutes } from "#stacks/definitions";

const defineOperation = routedBy(callWebhookRoutes);

const ProviderParams = v.object({ provider: v.pipe(v.string(), v.minLength(1), v.maxLength(32)) });
const signed =
  "Called by the carrier provider (`twilio`, or `simulator` locally), form-encoded and signed with X-Twilio-Signature " +
  "over the full URL and parameters; unsigned or wrongly signed requests are refused with 403. Idempotent.";

/** A provider voice webhook: public, signature-checked, answered with TwiML. */
const voiceWebhook = (
  operationId: keyof typeof callWebhookRoutes,
  summary: string,
  description: string,
  answer: string,
) =>
  defineOperation({
    operationId,
    summary,
    description: `${signed} ${description}`,
    tag: "Webhooks",
    auth: "public",
    params: ProviderParams,
    success: { status: 200, description: answer, contentType: "text/xml", jsonSchema: { type: "string" } },
    problems: [403, 404, 429],
  });

export const callStatusWebhook = voiceWebhook(
  "callStatusWebhook",
  "Provider progress of outbound and inbound calls",
  "Statuses apply in rank order: a late 'ringing' never undoes 'completed'.",
  "Acknowledged (empty TwiML)",
);

export const inboundCallWebhook = voiceWebhook(
  "inboundCallWebhook",
  "Provider notice of a contact calling one of the organization's numbers",
  "Answers the call instructions (TwiML). An inbound call that ends unanswered is a missed call.",
  "Call instructions (TwiML)",
);

export const callDialWebhook = voiceWebhook(
  "callDialWebhook",
  "Provider result of forwarding an inbound call (the Dial action)",
  "Carries DialCallStatus and DialCallDuration for `?callId=`: completed or answered means a person answered; " +
    "busy, no-answer, failed or canceled end the call as a missed call. A repeated result changes nothing.",
  "The rest of the call instructions (TwiML)",
);
