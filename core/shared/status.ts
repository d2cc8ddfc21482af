/**
 * Delivery lifecycles of messages and calls. Statuses are ranked so that a
 * transition only moves forward: out-of-order or repeated provider callbacks
 * (a late "sent" after "delivered") are ignored, and a final status stays
 * final. `acceptedFrom(next)` lists the statuses a conditional write may
 * overwrite, so storage enforces the same rule atomically.
 */

export const MESSAGE_STATUSES = [
  "Pending",
  "Scheduled",
  "Queued",
  "Sending",
  "Sent",
  "Unknown",
  "Delivered",
  "Undelivered",
  "Failed",
  "Blocked",
  "Canceled",
  "Received",
] as const;
export type MessageStatus = (typeof MESSAGE_STATUSES)[number];

export type MessageTimestampField =
  | "queuedAt"
  | "sendingStartedAt"
  | "sentAt"
  | "deliveredAt"
  | "undeliverableAt"
  | "failedAt"
  | "blockedAt"
  | "canceledAt"
  | "receivedAt";

export const CALL_STATUSES = [
  "Queued",
  "Ringing",
  "InProgress",
  "Completed",
  "Busy",
  "NoAnswer",
  "Failed",
  "Canceled",
] as const;
export type CallStatus = (typeof CALL_STATUSES)[number];
export type CallTimestampField = "answeredAt" | "endedAt";

/** Why a transition was not applied. */
export type IgnoredReason = "Duplicate" | "Final" | "Backwards" | "NotAllowed";

export type TransitionResult<S extends string, F extends string> =
  { accepted: true; status: S; timestampField: F | undefined } | { accepted: false; status: S; reason: IgnoredReason };

type Rule<F extends string> = {
  rank: number;
  final: boolean;
  timestampField?: F;
  /** Highest rank this status may be reached from (Canceled only before sending). */
  latestFromRank?: number;
};

/** A ranked lifecycle: transitions, final statuses, timestamps. */
export type Lifecycle<S extends string, F extends string> = {
  statuses: readonly S[];
  isFinal(status: S): boolean;
  rank(status: S): number;
  timestampField(status: S): F | undefined;
  applyTransition(current: S, next: S): TransitionResult<S, F>;
  acceptedFrom(next: S): S[];
};

function lifecycle<S extends string, F extends string>(
  statuses: readonly S[],
  rules: Record<S, Rule<F>>,
): Lifecycle<S, F> {
  const applyTransition = (current: S, next: S): TransitionResult<S, F> => {
    const from = rules[current];
    const to = rules[next];
    if (current === next) return { accepted: false, status: current, reason: "Duplicate" };
    if (from.final) return { accepted: false, status: current, reason: "Final" };
    if (to.rank <= from.rank) return { accepted: false, status: current, reason: "Backwards" };
    if (to.latestFromRank !== undefined && from.rank > to.latestFromRank) {
      return { accepted: false, status: current, reason: "NotAllowed" };
    }
    return { accepted: true, status: next, timestampField: to.timestampField };
  };
  return {
    statuses,
    isFinal: (status) => rules[status].final,
    rank: (status) => rules[status].rank,
    timestampField: (status) => rules[status].timestampField,
    applyTransition,
    acceptedFrom: (next) => statuses.filter((current) => applyTransition(current, next).accepted),
  };
}

/**
 * Messages. Unknown is where a sent message lands when no final receipt came
 * within RECEIPT_TIMEOUT_MS; a receipt that still arrives later replaces it.
 * Received is the status of inbound messages and has no predecessor.
 */
export const messageLifecycle = lifecycle<MessageStatus, MessageTimestampField>(MESSAGE_STATUSES, {
  Pending: { rank: 0, final: false },
  Scheduled: { rank: 1, final: false },
  Queued: { rank: 2, final: false, timestampField: "queuedAt" },
  Sending: { rank: 3, final: false, timestampField: "sendingStartedAt" },
  Sent: { rank: 4, final: false, timestampField: "sentAt" },
  Unknown: { rank: 5, final: false },
  Delivered: { rank: 6, final: true, timestampField: "deliveredAt" },
  Undelivered: { rank: 6, final: true, timestampField: "undeliverableAt" },
  Failed: { rank: 6, final: true, timestampField: "failedAt" },
  Blocked: { rank: 6, final: true, timestampField: "blockedAt", latestFromRank: 3 },
  Canceled: { rank: 6, final: true, timestampField: "canceledAt", latestFromRank: 2 },
  Received: { rank: 6, final: true, timestampField: "receivedAt", latestFromRank: -1 },
});

/** Calls. Busy, no-answer and cancel can only end a call that was never answered. */
export const callLifecycle = lifecycle<CallStatus, CallTimestampField>(CALL_STATUSES, {
  Queued: { rank: 0, final: false },
  Ringing: { rank: 1, final: false },
  InProgress: { rank: 2, final: false, timestampField: "answeredAt" },
  Completed: { rank: 3, final: true, timestampField: "endedAt" },
  Busy: { rank: 3, final: true, timestampField: "endedAt", latestFromRank: 1 },
  NoAnswer: { rank: 3, final: true, timestampField: "endedAt", latestFromRank: 1 },
  Failed: { rank: 3, final: true, timestampField: "endedAt" },
  Canceled: { rank: 3, final: true, timestampField: "endedAt", latestFromRank: 1 },
});

/** Applies a message status change; ignored when it would move backwards or leave a final status. */
export function applyTransition(current: MessageStatus, next: MessageStatus) {
  return messageLifecycle.applyTransition(current, next);
}

/** Applies a call status change under the same rules. */
export function applyCallTransition(current: CallStatus, next: CallStatus) {
  return callLifecycle.applyTransition(current, next);
}

/**
 * The one allowed backward step: a send attempt that hit a transient provider
 * error returns from Sending to Queued to wait for `nextRetryAt`.
 */
export function requeueForRetry(current: MessageStatus): TransitionResult<MessageStatus, MessageTimestampField> {
  if (current !== "Sending") return { accepted: false, status: current, reason: "NotAllowed" };
  return { accepted: true, status: "Queued", timestampField: undefined };
}

/**
 * An inbound call that ended without a person answering it is a missed call.
 * An inbound call is Completed only when a person answered it (the forwarded
 * leg of its Dial was answered: `inboundDialStatus`); the provider's own
 * `completed` of the caller's leg only says our instructions ran to the end
 * (`inboundCallStatus`).
 */
export function isMissedCall(direction: "inbound" | "outbound", status: CallStatus): boolean {
  return direction === "inbound" && callLifecycle.isFinal(status) && status !== "Completed";
}

/**
 * What a provider status of an inbound call's own leg means for the call. Our
 * instructions answer every inbound call, so `in-progress` is no person
 * answering (ignored) and `completed` is a call that ended before anyone
 * answered (NoAnswer): only the Dial result answers an inbound call.
 */
export function inboundCallStatus(reported: CallStatus): CallStatus | undefined {
  if (reported === "InProgress") return undefined;
  return reported === "Completed" ? "NoAnswer" : reported;
}

/** The outcome of an inbound call's forwarded leg (the Dial result): answered ends it Completed, anything else ends it missed. */
export function inboundDialStatus(reported: CallStatus): CallStatus {
  if (reported === "InProgress" || reported === "Completed") return "Completed";
  return callLifecycle.isFinal(reported) ? reported : "NoAnswer";
}

/** Carriers may report delivery up to 72 hours after sending; after that a Sent message becomes Unknown. */
export const RECEIPT_TIMEOUT_MS = 72 * 60 * 60 * 1000;

/** True when a message still Sent has waited longer than RECEIPT_TIMEOUT_MS for its receipt. */
export function isReceiptOverdue(status: MessageStatus, sentAt: string, now: Date | string): boolean {
  return status === "Sent" && new Date(now).getTime() - new Date(sentAt).getTime() >= RECEIPT_TIMEOUT_MS;
}

export type RetryPolicy = {
  /** Retries after the first attempt; then the message fails. */
  maxRetries: number;
  baseDelayMs: number;
  maxDelayMs: number;
};

export const DEFAULT_RETRY_POLICY: RetryPolicy = { maxRetries: 5, baseDelayMs: 30_000, maxDelayMs: 15 * 60_000 };

/**
 * Exponential backoff with full jitter: a uniform delay in
 * [0, min(maxDelay, base × 2^retryCount)), never below a provider's Retry-After.
 */
export function retryDelayMs(
  retryCount: number,
  policy: RetryPolicy = DEFAULT_RETRY_POLICY,
  random: () => number = Math.random,
  retryAfterSeconds?: number,
): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** retryCount);
  const jittered = Math.floor(random() * ceiling);
  return Math.max(jittered, (retryAfterSeconds ?? 0) * 1000);
}

export type RetryPlan =
  | { retry: true; retryCount: number; delayMs: number; nextRetryAt: string }
  | { retry: false; retryCount: number; reason: "MaxRetriesExceeded" };

/** Decides whether a transient failure is retried, and when (`nextRetryAt`, ISO UTC). */
export function planRetry(input: {
  retryCount: number;
  now: Date | string;
  policy?: RetryPolicy;
  random?: () => number;
  retryAfterSeconds?: number;
}): RetryPlan {
  const policy = input.policy ?? DEFAULT_RETRY_POLICY;
  if (input.retryCount >= policy.maxRetries) {
    return { retry: false, retryCount: input.retryCount, reason: "MaxRetriesExceeded" };
  }
  const delayMs = retryDelayMs(input.retryCount, policy, input.random, input.retryAfterSeconds);
  return {
    retry: true,
    retryCount: input.retryCount + 1,
    delayMs,
    nextRetryAt: new Date(new Date(input.now).getTime() + delayMs).toISOString(),
  };
}
