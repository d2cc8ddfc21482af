import { inboundDialStatus, type CallStatus, type MessageStatus } from "#core/shared/status";
import type { CallStatusReport } from "#core/providers/port";

/**
 * Twilio status words → our statuses. `read` (channels with read receipts)
 * implies delivered; `partially_delivered` counts as delivered (the recipient
 * got content; the provider status is kept on the event).
 */
const MESSAGE_STATUS: Readonly<Record<string, MessageStatus>> = {
  accepted: "Queued",
  scheduled: "Scheduled",
  queued: "Queued",
  sending: "Sending",
  sent: "Sent",
  delivered: "Delivered",
  read: "Delivered",
  partially_delivered: "Delivered",
  undelivered: "Undelivered",
  failed: "Failed",
  canceled: "Canceled",
  receiving: "Received",
  received: "Received",
};

const CALL_STATUS: Readonly<Record<string, CallStatus>> = {
  queued: "Queued",
  initiated: "Queued",
  ringing: "Ringing",
  "in-progress": "InProgress",
  answered: "InProgress",
  completed: "Completed",
  busy: "Busy",
  "no-answer": "NoAnswer",
  failed: "Failed",
  canceled: "Canceled",
};

/** Our message status for a Twilio MessageStatus, or undefined for one we do not know. */
export function messageStatusFromTwilio(status: string): MessageStatus | undefined {
  return MESSAGE_STATUS[status.toLowerCase()];
}

/** Our call status for a Twilio CallStatus, or undefined for one we do not know. */
export function callStatusFromTwilio(status: string): CallStatus | undefined {
  return CALL_STATUS[status.toLowerCase()];
}

/**
 * Our outcome of a `<Dial>` for its DialCallStatus (completed or answered: a
 * person answered; busy, no-answer, failed, canceled), or undefined for a word we do not know.
 */
export function dialStatusFromTwilio(status: string): CallStatus | undefined {
  const reported = callStatusFromTwilio(status);
  return reported === undefined ? undefined : inboundDialStatus(reported);
}

/** A call resource as Twilio's Calls API (and Telnyx TeXML's, its compatible twin) answers it, as a report; undefined for a status we do not know. */
export function callReportFromTwilio(
  call: Record<string, unknown>,
  providerCallId: string,
): CallStatusReport | undefined {
  const providerStatus = String(call["status"] ?? "");
  const status = callStatusFromTwilio(providerStatus);
  if (status === undefined) return undefined;
  const duration = Number.parseInt(String(call["duration"] ?? ""), 10);
  return {
    providerCallId: String(call["sid"] ?? providerCallId),
    status,
    providerStatus,
    direction: String(call["direction"] ?? "inbound").startsWith("outbound") ? "outbound" : "inbound",
    ...(Number.isFinite(duration) ? { durationSeconds: duration } : {}),
  };
}
