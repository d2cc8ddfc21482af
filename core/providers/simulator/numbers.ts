import type { CallStatus, MessageStatus } from "#core/shared/status";
import type { ProviderErrorKind } from "#core/providers/port";

/**
 * Magic destination numbers of the local carrier simulator. They use the
 * NANP range reserved for fiction, 555-0100 to 555-0199, under any real area
 * code: +1 NPA 555 01XX (so they pass phone validation and the area code still
 * picks the recipient's time zone). The last two digits choose the outcome;
 * every other number is delivered / answered normally.
 * Documented in docs/provider-simulator.md.
 */

export type SimulatedError = { kind: ProviderErrorKind; code: string; message: string };

/** `lost`: the status happens at the carrier but its callback is never posted (only asking for the status tells). */
export type SimulatedCallback<S extends string> = { status: S; afterMs: number; errorCode?: string; lost?: true };

export type MessageScenario = {
  name: string;
  description: string;
  /** The send is refused on its first `failedAttempts` attempts ("all": every attempt). */
  sendError?: SimulatedError & { failedAttempts: number | "all" };
  /** Status callbacks after an accepted send, in the order they are emitted (ms after acceptance). */
  callbacks: SimulatedCallback<MessageStatus>[];
  /** Every callback is delivered twice. */
  duplicateCallbacks?: boolean;
};

export type CallScenario = {
  name: string;
  description: string;
  sendError?: SimulatedError & { failedAttempts: number | "all" };
  callbacks: SimulatedCallback<CallStatus>[];
  /** Talk time reported with Completed. */
  durationSeconds: number;
  recording: boolean;
  /** The callbacks happen at the carrier but are never posted (lost webhooks): only asking for the call's status tells. */
  silent?: boolean;
};

/** Delays of the simulated carrier: quick enough for tests, ordered like a real one. */
export const SIMULATOR_DELAYS = {
  sent: 50,
  delivered: 150,
  slowDelivered: 15_000,
  ringing: 50,
  answered: 150,
  ended: 300,
  ringOut: 60_000,
} as const;
const d = SIMULATOR_DELAYS;

const delivered: SimulatedCallback<MessageStatus>[] = [
  { status: "Sent", afterMs: d.sent },
  { status: "Delivered", afterMs: d.delivered },
];

const DEFAULT_MESSAGE: MessageScenario = {
  name: "Delivered",
  description: "Sent, then delivered.",
  callbacks: delivered,
};

export const MESSAGE_SCENARIOS: Readonly<Record<string, MessageScenario>> = {
  "00": DEFAULT_MESSAGE,
  "01": {
    name: "Failed",
    description: "Accepted, then failed at the carrier (30008).",
    callbacks: [{ status: "Failed", afterMs: d.sent, errorCode: "30008" }],
  },
  "02": {
    name: "Undelivered",
    description: "Sent, then undeliverable: unreachable handset (30003).",
    callbacks: [
      { status: "Sent", afterMs: d.sent },
      { status: "Undelivered", afterMs: d.delivered, errorCode: "30003" },
    ],
  },
  "03": {
    name: "TransientThenDelivered",
    description: "The first send attempt is refused with a transient error (20429), the retry is delivered.",
    sendError: { kind: "transient", code: "20429", message: "Too Many Requests", failedAttempts: 1 },
    callbacks: delivered,
  },
  "04": {
    name: "AlwaysTransient",
    description: "Every send attempt is refused with a transient error (30001): retries run out, the message fails.",
    sendError: { kind: "transient", code: "30001", message: "Queue overflow", failedAttempts: "all" },
    callbacks: [],
  },
  "05": {
    name: "SlowDelivery",
    description: "Sent at once, delivered after 15 seconds.",
    callbacks: [
      { status: "Sent", afterMs: d.sent },
      { status: "Delivered", afterMs: d.slowDelivered },
    ],
  },
  "06": {
    name: "OptedOut",
    description: "Refused: the recipient unsubscribed at the carrier (21610); the number joins the suppression list.",
    sendError: {
      kind: "optedOut",
      code: "21610",
      message: "Attempt to send to unsubscribed recipient",
      failedAttempts: "all",
    },
    callbacks: [],
  },
  "07": {
    name: "InvalidNumber",
    description: "Refused permanently: not a valid mobile number (21614).",
    sendError: {
      kind: "permanent",
      code: "21614",
      message: "'To' number is not a valid mobile number",
      failedAttempts: "all",
    },
    callbacks: [],
  },
  "08": {
    name: "NoReceipt",
    description: "Sent, and no final receipt ever arrives (the message turns Unknown after the receipt timeout).",
    callbacks: [{ status: "Sent", afterMs: d.sent }],
  },
  "09": {
    name: "OutOfOrder",
    description: "The delivered callback arrives before the sent callback.",
    // The sent callback trails by 250 ms, and is posted only once the delivered one was answered (adapter.ts, `emit`):
    // however busy the receiver, it handles them in this order.
    callbacks: [
      { status: "Delivered", afterMs: d.sent },
      { status: "Sent", afterMs: d.sent + 250 },
    ],
  },
  "10": {
    name: "DuplicateCallbacks",
    description: "Sent and delivered, each callback delivered twice.",
    callbacks: delivered,
    duplicateCallbacks: true,
  },
  "11": {
    name: "CarrierFiltered",
    description: "Sent, then blocked by the carrier's filter (30007, undelivered).",
    callbacks: [
      { status: "Sent", afterMs: d.sent },
      { status: "Undelivered", afterMs: d.delivered, errorCode: "30007" },
    ],
  },
  "12": {
    name: "LostReceipt",
    description:
      "Sent, then delivered at the carrier, but the delivered callback is never posted: the message sweep asks the carrier.",
    callbacks: [
      { status: "Sent", afterMs: d.sent },
      { status: "Delivered", afterMs: d.delivered, lost: true },
    ],
  },
  "13": {
    name: "LostFailure",
    description:
      "Sent, then undelivered at the carrier (30003), but that callback is never posted: the message sweep asks the carrier.",
    callbacks: [
      { status: "Sent", afterMs: d.sent },
      { status: "Undelivered", afterMs: d.delivered, errorCode: "30003", lost: true },
    ],
  },
};

const answered: SimulatedCallback<CallStatus>[] = [
  { status: "Ringing", afterMs: d.ringing },
  { status: "InProgress", afterMs: d.answered },
  { status: "Completed", afterMs: d.ended },
];

const DEFAULT_CALL: CallScenario = {
  name: "Answered",
  description: "Rings, is answered, completes after 42 seconds of talk.",
  callbacks: answered,
  durationSeconds: 42,
  recording: false,
};

export const CALL_SCENARIOS: Readonly<Record<string, CallScenario>> = {
  "20": DEFAULT_CALL,
  "21": {
    name: "Busy",
    description: "The line is busy.",
    callbacks: [
      { status: "Ringing", afterMs: d.ringing },
      { status: "Busy", afterMs: d.answered },
    ],
    durationSeconds: 0,
    recording: false,
  },
  "22": {
    name: "NoAnswer",
    description: "Rings out without an answer.",
    callbacks: [
      { status: "Ringing", afterMs: d.ringing },
      { status: "NoAnswer", afterMs: d.ended },
    ],
    durationSeconds: 0,
    recording: false,
  },
  "23": {
    name: "Failed",
    description: "The call cannot be connected (carrier failure).",
    callbacks: [{ status: "Failed", afterMs: d.ringing, errorCode: "31005" }],
    durationSeconds: 0,
    recording: false,
  },
  "24": {
    name: "LongCall",
    description: "Answered, 125 seconds of talk (3 started minutes, for billing rounding).",
    callbacks: answered,
    durationSeconds: 125,
    recording: false,
  },
  "25": {
    name: "Recorded",
    description: "Answered, 42 seconds, with a recording URL on completion.",
    callbacks: answered,
    durationSeconds: 42,
    recording: true,
  },
  "26": {
    name: "InvalidNumber",
    description: "Refused permanently: invalid number (21211).",
    sendError: { kind: "permanent", code: "21211", message: "Invalid 'To' Phone Number", failedAttempts: "all" },
    callbacks: [],
    durationSeconds: 0,
    recording: false,
  },
  "27": {
    name: "RingsOut",
    description:
      "Rings for 60 seconds (Twilio's default timeout), then ends unanswered: the call holds its reservation meanwhile.",
    callbacks: [
      { status: "Ringing", afterMs: d.ringing },
      { status: "NoAnswer", afterMs: d.ringOut },
    ],
    durationSeconds: 0,
    recording: false,
  },
  "28": {
    name: "Silent",
    description:
      "Answered and completed after 42 seconds of talk, but no status callback is ever posted (lost webhooks): the call sweep asks for its status.",
    callbacks: answered,
    durationSeconds: 42,
    recording: false,
    silent: true,
  },
};

const MAGIC = /^\+1[2-9]\d{2}55501(\d{2})$/;

/** The two scenario digits of a magic number (+1 NPA 555 01XX), else undefined. */
export function magicSuffix(e164: string): string | undefined {
  return MAGIC.exec(e164)?.[1];
}

/** What the simulator does with a message to this number. */
export function messageScenario(to: string): MessageScenario {
  const suffix = magicSuffix(to);
  return (suffix === undefined ? undefined : MESSAGE_SCENARIOS[suffix]) ?? DEFAULT_MESSAGE;
}

/** What the simulator does with a call to this number. */
export function callScenario(to: string): CallScenario {
  const suffix = magicSuffix(to);
  return (suffix === undefined ? undefined : CALL_SCENARIOS[suffix]) ?? DEFAULT_CALL;
}

/** The error a send attempt (1-based) meets, if the scenario refuses that attempt. */
export function sendAttemptError(
  scenario: Pick<MessageScenario, "sendError">,
  attempt: number,
): SimulatedError | undefined {
  const error = scenario.sendError;
  if (error === undefined) return undefined;
  if (error.failedAttempts !== "all" && attempt > error.failedAttempts) return undefined;
  return { kind: error.kind, code: error.code, message: error.message };
}
