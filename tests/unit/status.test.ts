import { describe, expect, it } from "vitest";
import {
  DEFAULT_RETRY_POLICY,
  MESSAGE_STATUSES,
  RECEIPT_TIMEOUT_MS,
  applyCallTransition,
  applyTransition,
  callLifecycle,
  inboundCallStatus,
  inboundDialStatus,
  isMissedCall,
  isReceiptOverdue,
  messageLifecycle,
  planRetry,
  requeueForRetry,
  retryDelayMs,
  type MessageStatus,
} from "#core/shared/status";

describe("message status transitions", () => {
  it.each([
    ["Pending", "Queued", "queuedAt"],
    ["Pending", "Scheduled", undefined],
    ["Scheduled", "Queued", "queuedAt"],
    ["Queued", "Sending", "sendingStartedAt"],
    ["Sending", "Sent", "sentAt"],
    ["Sent", "Delivered", "deliveredAt"],
    ["Sent", "Undelivered", "undeliverableAt"],
    ["Sending", "Failed", "failedAt"],
    ["Queued", "Delivered", "deliveredAt"],
    ["Sent", "Unknown", undefined],
    ["Unknown", "Delivered", "deliveredAt"],
    ["Unknown", "Failed", "failedAt"],
    ["Pending", "Blocked", "blockedAt"],
    ["Sending", "Blocked", "blockedAt"],
    ["Scheduled", "Canceled", "canceledAt"],
    ["Queued", "Canceled", "canceledAt"],
  ] as const)("%s → %s is accepted and sets %s", (current, next, timestampField) => {
    expect(applyTransition(current, next)).toEqual({ accepted: true, status: next, timestampField });
  });

  it.each([
    ["Delivered", "Sent", "Final"],
    ["Delivered", "Undelivered", "Final"],
    ["Failed", "Delivered", "Final"],
    ["Canceled", "Queued", "Final"],
    ["Blocked", "Sending", "Final"],
    ["Sent", "Sending", "Backwards"],
    ["Sent", "Queued", "Backwards"],
    ["Sending", "Queued", "Backwards"],
    ["Unknown", "Sent", "Backwards"],
    ["Sent", "Sent", "Duplicate"],
    ["Delivered", "Delivered", "Duplicate"],
    ["Sending", "Canceled", "NotAllowed"],
    ["Sent", "Canceled", "NotAllowed"],
    ["Sent", "Blocked", "NotAllowed"],
    ["Pending", "Received", "NotAllowed"],
  ] as const)("%s → %s is ignored (%s) and the status stays", (current, next, reason) => {
    expect(applyTransition(current, next)).toEqual({ accepted: false, status: current, reason });
  });

  it("a late sent callback never overwrites delivered, whatever the order", () => {
    const arrivals: MessageStatus[] = ["Queued", "Sending", "Delivered", "Sent", "Sending"];
    const final = arrivals.reduce<MessageStatus>((status, next) => applyTransition(status, next).status, "Pending");
    expect(final).toBe("Delivered");
  });

  it("no final status can ever be left", () => {
    for (const current of MESSAGE_STATUSES.filter((status) => messageLifecycle.isFinal(status))) {
      for (const next of MESSAGE_STATUSES) expect(applyTransition(current, next).accepted).toBe(false);
    }
  });

  it("lists the statuses a conditional write may overwrite", () => {
    expect(messageLifecycle.acceptedFrom("Sent")).toEqual(["Pending", "Scheduled", "Queued", "Sending"]);
    expect(messageLifecycle.acceptedFrom("Delivered")).toEqual([
      "Pending",
      "Scheduled",
      "Queued",
      "Sending",
      "Sent",
      "Unknown",
    ]);
    expect(messageLifecycle.acceptedFrom("Canceled")).toEqual(["Pending", "Scheduled", "Queued"]);
    expect(messageLifecycle.acceptedFrom("Sending")).toEqual(["Pending", "Scheduled", "Queued"]);
    expect(messageLifecycle.acceptedFrom("Received")).toEqual([]);
  });

  it("only a sending attempt returns to the queue for a retry", () => {
    expect(requeueForRetry("Sending")).toEqual({ accepted: true, status: "Queued", timestampField: undefined });
    expect(requeueForRetry("Sent")).toEqual({ accepted: false, status: "Sent", reason: "NotAllowed" });
    expect(requeueForRetry("Delivered")).toMatchObject({ accepted: false });
  });
});

describe("call status transitions", () => {
  it.each([
    ["Queued", "Ringing", undefined],
    ["Ringing", "InProgress", "answeredAt"],
    ["Queued", "InProgress", "answeredAt"],
    ["InProgress", "Completed", "endedAt"],
    ["Ringing", "Busy", "endedAt"],
    ["Ringing", "NoAnswer", "endedAt"],
    ["Queued", "Failed", "endedAt"],
    ["InProgress", "Failed", "endedAt"],
    ["Queued", "Canceled", "endedAt"],
  ] as const)("%s → %s is accepted and sets %s", (current, next, timestampField) => {
    expect(applyCallTransition(current, next)).toEqual({ accepted: true, status: next, timestampField });
  });

  it.each([
    ["Completed", "InProgress", "Final"],
    ["Busy", "Completed", "Final"],
    ["InProgress", "Ringing", "Backwards"],
    ["InProgress", "Busy", "NotAllowed"],
    ["InProgress", "NoAnswer", "NotAllowed"],
    ["InProgress", "Canceled", "NotAllowed"],
    ["Ringing", "Ringing", "Duplicate"],
  ] as const)("%s → %s is ignored (%s)", (current, next, reason) => {
    expect(applyCallTransition(current, next)).toEqual({ accepted: false, status: current, reason });
  });

  it("counts unanswered inbound calls as missed", () => {
    expect(isMissedCall("inbound", "NoAnswer")).toBe(true);
    expect(isMissedCall("inbound", "Busy")).toBe(true);
    expect(isMissedCall("inbound", "Completed")).toBe(false);
    expect(isMissedCall("inbound", "Ringing")).toBe(false);
    expect(isMissedCall("outbound", "NoAnswer")).toBe(false);
    expect(callLifecycle.acceptedFrom("Busy")).toEqual(["Queued", "Ringing"]);
  });

  it("answers an inbound call only by a person: its own leg's in-progress is ignored and its completed is a call nobody answered", () => {
    expect(inboundCallStatus("Ringing")).toBe("Ringing");
    expect(inboundCallStatus("InProgress")).toBeUndefined();
    expect(inboundCallStatus("Completed")).toBe("NoAnswer");
    expect(inboundCallStatus("Canceled")).toBe("Canceled");
    expect(inboundDialStatus("Completed")).toBe("Completed");
    expect(inboundDialStatus("InProgress")).toBe("Completed");
    expect(inboundDialStatus("Busy")).toBe("Busy");
    expect(inboundDialStatus("Ringing")).toBe("NoAnswer");
    expect(isMissedCall("inbound", inboundCallStatus("Completed")!)).toBe(true);
  });
});

describe("receipt timeout", () => {
  const sentAt = "2025-06-01T00:00:00.000Z";
  it("turns a Sent message overdue after 72 hours, not before", () => {
    expect(RECEIPT_TIMEOUT_MS).toBe(259_200_000);
    expect(isReceiptOverdue("Sent", sentAt, "2025-06-03T23:59:59.999Z")).toBe(false);
    expect(isReceiptOverdue("Sent", sentAt, "2025-06-04T00:00:00.000Z")).toBe(true);
    expect(isReceiptOverdue("Delivered", sentAt, "2025-07-01T00:00:00.000Z")).toBe(false);
  });
});

describe("retry policy", () => {
  const policy = { maxRetries: 3, baseDelayMs: 1000, maxDelayMs: 5000 };

  it.each([
    [0, 0.5, 500],
    [1, 0.5, 1000],
    [2, 0.5, 2000],
    [3, 0.5, 2500],
    [10, 0.999, 4995],
    [0, 0, 0],
  ])(
    "retry %s with random %s waits %s ms (full jitter under an exponential ceiling)",
    (retryCount, sample, expected) => {
      expect(retryDelayMs(retryCount, policy, () => sample)).toBe(expected);
    },
  );

  it("never waits less than the provider's Retry-After", () => {
    expect(retryDelayMs(0, policy, () => 0.1, 30)).toBe(30_000);
  });

  it("stays within the ceiling for any random draw", () => {
    for (let retryCount = 0; retryCount < 12; retryCount++) {
      const delay = retryDelayMs(retryCount, DEFAULT_RETRY_POLICY);
      expect(delay).toBeGreaterThanOrEqual(0);
      expect(delay).toBeLessThan(
        Math.min(DEFAULT_RETRY_POLICY.maxDelayMs, DEFAULT_RETRY_POLICY.baseDelayMs * 2 ** retryCount),
      );
    }
  });

  it("plans nextRetryAt from now and counts the retry", () => {
    expect(planRetry({ retryCount: 1, now: "2025-06-01T00:00:00.000Z", policy, random: () => 0.25 })).toEqual({
      retry: true,
      retryCount: 2,
      delayMs: 500,
      nextRetryAt: "2025-06-01T00:00:00.500Z",
    });
  });

  it("gives up after the maximum number of retries", () => {
    expect(planRetry({ retryCount: 3, now: new Date(), policy })).toEqual({
      retry: false,
      retryCount: 3,
      reason: "MaxRetriesExceeded",
    });
  });
});
