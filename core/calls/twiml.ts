/**
 * The call instructions (TwiML) our voice webhooks answer. Everything
 * interpolated is XML-escaped.
 */

const PROLOG = '<?xml version="1.0" encoding="UTF-8"?>';

/** Escapes text or an attribute value for XML. */
export function xmlEscape(value: string | number): string {
  return String(value).replace(
    /[&<>"']/g,
    (char) => `&${{ "&": "amp", "<": "lt", ">": "gt", '"': "quot", "'": "apos" }[char]};`,
  );
}

const document = (body: string) => `${PROLOG}<Response>${body}</Response>`;

/** A `<Dial>` of one number, its outcome posted to `action`; `timeLimitSeconds` caps the dialed leg's talk time. */
const dial = (input: {
  number: string;
  ringSeconds: number;
  action: string;
  callerId: string;
  timeLimitSeconds?: number;
}) =>
  `<Dial timeout="${xmlEscape(input.ringSeconds)}"${input.timeLimitSeconds === undefined ? "" : ` timeLimit="${xmlEscape(input.timeLimitSeconds)}"`}` +
  ` action="${xmlEscape(input.action)}" method="POST" callerId="${xmlEscape(input.callerId)}">` +
  `<Number>${xmlEscape(input.number)}</Number></Dial>`;

/** A number that belongs to no organization: the call is refused. */
export const reject = () => document('<Reject reason="rejected"/>');

/** Nobody can take the call (no forwarding number): say so and hang up; the call is missed. */
export const unattended = () =>
  document(
    "<Say>Thank you for calling. Nobody can take your call right now; we will get back to you shortly.</Say><Hangup/>",
  );

/**
 * Rings the forwarding number for `ringSeconds`, showing the caller's number;
 * the provider posts the outcome to `action`. `timeLimitSeconds` caps the
 * forwarded leg's talk time (what its billing hold covers).
 */
export const forward = (input: {
  forwardTo: string;
  ringSeconds: number;
  action: string;
  callerId: string;
  timeLimitSeconds?: number;
}) => document(dial({ ...input, number: input.forwardTo }));

/**
 * Click-to-call, played to the business side once it answers: the optional
 * whisper, then the lead dialed with the organization's number as caller id;
 * the provider posts the lead leg's outcome to `action`.
 */
export const bridge = (input: {
  whisper: string | null;
  lead: string;
  ringSeconds: number;
  action: string;
  callerId: string;
  timeLimitSeconds: number;
}) =>
  document(`${input.whisper ? `<Say>${xmlEscape(input.whisper)}</Say>` : ""}${dial({ ...input, number: input.lead })}`);

/** After a bridged call's Dial: the business side hears why the lead was not connected. */
export const afterBridge = (connected: boolean) =>
  connected ? document("") : document("<Say>The lead could not be reached.</Say><Hangup/>");

/** After the Dial: an answered call just ends; an unanswered one hears an apology first. */
export const afterDial = (answered: boolean) =>
  answered
    ? document("")
    : document("<Say>Sorry, nobody could take your call. We will get back to you shortly.</Say><Hangup/>");
