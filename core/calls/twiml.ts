/**
 * The call instructions (TwiML) our voice webhooks answer. Everything
 * interpolated is XML-escaped.
 */

const PROLOG = '<?xml version="1.0" encoding="UTF-8"?>';

/** Escapes text or an attribute value for XML. */
export function xmlEscape(value: string | number): string {
  return String(value).replace(/[&<>"']/g, (char) => `&${{ "&": "amp", "<": "lt", ">": "gt", '"': "quot", "'": "apos" }[char]};`);
}

const document = (body: string) => `${PROLOG}<Response>${body}</Response>`;

export const Twiml = {
  /** A number that belongs to no organization: the call is refused. */
  reject: () => document('<Reject reason="rejected"/>'),

  /** Nobody can take the call (no forwarding number): say so and hang up; the call is missed. */
  unattended: () =>
    document("<Say>Thank you for calling. Nobody can take your call right now; we will get back to you shortly.</Say><Hangup/>"),

  /**
   * Rings the forwarding number for `ringSeconds`, showing the caller's number;
   * the provider posts the outcome to `action`. `timeLimitSeconds` caps the
   * forwarded leg's talk time (what its billing hold covers).
   */
  forward: (input: { forwardTo: string; ringSeconds: number; action: string; callerId: string; timeLimitSeconds?: number }) =>
    document(
      `<Dial timeout="${xmlEscape(input.ringSeconds)}"${input.timeLimitSeconds === undefined ? "" : ` timeLimit="${xmlEscape(input.timeLimitSeconds)}"`}` +
        ` action="${xmlEscape(input.action)}" method="POST" callerId="${xmlEscape(input.callerId)}">` +
        `<Number>${xmlEscape(input.forwardTo)}</Number></Dial>`,
    ),

  /** After the Dial: an answered call just ends; an unanswered one hears an apology first. */
  afterDial: (answered: boolean) =>
    answered ? document("") : document("<Say>Sorry, nobody could take your call. We will get back to you shortly.</Say><Hangup/>"),
};
