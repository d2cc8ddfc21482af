import { ProviderError, type ProviderErrorKind } from "#core/providers/port";

/**
 * Twilio error codes → what the sender does about them. Anything not listed:
 * HTTP 429 and 5xx are transient, any other 4xx is permanent.
 * Reference: https://www.twilio.com/docs/api/errors
 */
export const TWILIO_ERROR_KINDS: Readonly<Record<string, { kind: ProviderErrorKind; meaning: string }>> = {
  "21610": { kind: "optedOut", meaning: "Attempt to send to unsubscribed recipient (replied STOP)" },
  "21211": { kind: "permanent", meaning: "Invalid 'To' phone number" },
  "21614": { kind: "permanent", meaning: "'To' number is not a valid mobile number" },
  "21612": { kind: "permanent", meaning: "'To' number is not reachable via SMS from this 'From'" },
  "21408": { kind: "permanent", meaning: "Permission to send to this region is not enabled" },
  "21215": { kind: "permanent", meaning: "Geo permissions do not allow calls to this number" },
  "21606": { kind: "permanent", meaning: "'From' number is not an SMS-capable number of the account" },
  "21602": { kind: "permanent", meaning: "Message body is required" },
  "21617": { kind: "permanent", meaning: "Message body exceeds 1600 characters" },
  "21620": { kind: "permanent", meaning: "Invalid media URL" },
  "20003": { kind: "permanent", meaning: "Authentication failed (account credentials)" },
  "20404": { kind: "permanent", meaning: "Resource not found" },
  "30002": { kind: "permanent", meaning: "Account suspended" },
  "30003": { kind: "permanent", meaning: "Unreachable destination handset" },
  "30004": { kind: "permanent", meaning: "Message blocked by the recipient or carrier" },
  "30005": { kind: "permanent", meaning: "Unknown destination handset" },
  "30006": { kind: "permanent", meaning: "Landline or unreachable carrier" },
  "30007": { kind: "permanent", meaning: "Message filtered by the carrier" },
  "30032": { kind: "permanent", meaning: "Toll-free number not verified" },
  "30034": { kind: "permanent", meaning: "A2P 10DLC: message from an unregistered number" },
  "20429": { kind: "transient", meaning: "Too many requests" },
  "14107": { kind: "transient", meaning: "SMS send rate limit exceeded" },
  "20500": { kind: "transient", meaning: "Twilio internal server error" },
  "20503": { kind: "transient", meaning: "Twilio service unavailable" },
  "21611": { kind: "transient", meaning: "'From' number has exceeded its queue size" },
  "30001": { kind: "transient", meaning: "Queue overflow" },
  "30008": { kind: "transient", meaning: "Unknown error from the carrier" },
  "30022": { kind: "transient", meaning: "A2P 10DLC throughput limit exceeded" },
  "30023": { kind: "transient", meaning: "A2P 10DLC daily message cap reached" },
};

/** The kind of a Twilio error, from its code, else from the HTTP status. */
export function classifyTwilioError(code: string | undefined, httpStatus?: number): ProviderErrorKind {
  const known = code === undefined ? undefined : TWILIO_ERROR_KINDS[code];
  if (known !== undefined) return known.kind;
  if (httpStatus === undefined || httpStatus === 429 || httpStatus >= 500) return "transient";
  return "permanent";
}

/** A ProviderError from a Twilio REST error response. */
export function twilioError(input: { httpStatus: number; body: unknown; retryAfter?: string | null }): ProviderError {
  const body = (typeof input.body === "object" && input.body !== null ? input.body : {}) as Record<string, unknown>;
  const code = body["code"] === undefined || body["code"] === null ? undefined : String(body["code"]);
  const message = typeof body["message"] === "string" ? body["message"] : `Twilio answered HTTP ${input.httpStatus}`;
  const retryAfter = input.retryAfter == null ? undefined : Number.parseInt(input.retryAfter, 10);
  return new ProviderError(classifyTwilioError(code, input.httpStatus), code ?? `http_${input.httpStatus}`, message, {
    httpStatus: input.httpStatus,
    ...(retryAfter !== undefined && Number.isFinite(retryAfter) && retryAfter >= 0
      ? { retryAfterSeconds: retryAfter }
      : {}),
  });
}
