import type { EventType } from "#core/events/types";
import type { EventRecord } from "#core/events/index";

/**
 * What one event or one lead adds to the analytics counters. Pure: the rollup
 * writer (core/analytics/rollups) and the exact reader of range edges
 * (core/analytics/read) both use these functions, so a figure means the same
 * whether it comes from a rollup item or from the records themselves.
 */

/** Counter name → amount added. Names are attributes of the rollup items. */
export type Counters = Record<string, number>;

/** A lead with no source is reported under this source key. */
export const noSource = "none";
/** A lead not answered within this many minutes of its creation is a missed lead. */
export const missedThresholdMinutes = 60;
/** Amounts are summed in units of 1/10 000 (the billing scale), so sums stay exact. */
export const amountScale = 10_000;

/** Counter names. Short, because every rollup item carries them. */
export const counter = {
  smsSent: "smsSent",
  smsReceived: "smsReceived",
  smsFailedOrBlocked: "smsFailed",
  smsDelivered: "smsDelivered",
  callsPlaced: "callsPlaced",
  callsReceived: "callsReceived",
  callsAnswered: "callsAnswered",
  callsMissed: "callsMissed",
  callSeconds: "callSeconds",
  spend: "spend",
  automationRuns: "autoRuns",
  automationSucceeded: "autoOk",
  automationFailed: "autoFail",
  leads: "leads",
  responded: "responded",
  responseSeconds: "rSec",
  withinFiveMinutes: "r5",
  withinThreshold: "rThr",
  sourceLeads: (source: string) => `src#${source}`,
  sourcePrice: (source: string) => `srcPrice#${source}`,
  sourceResponded: (source: string) => `srcResp#${source}`,
  /** Histogram of response times in whole minutes: how many leads were answered after `minutes`. */
  minutes: (minutes: number) => `h#${minutes}`,
  sourceMinutes: (source: string, minutes: number) => `hs#${source}#${minutes}`,
  /** Per assigned agent (the leaderboard): leads, responded, response seconds, answered within the missed threshold. */
  agentLeads: (userId: string) => `ag#${userId}`,
  agentResponded: (userId: string) => `agResp#${userId}`,
  agentResponseSeconds: (userId: string) => `agRSec#${userId}`,
  agentWithinThreshold: (userId: string) => `agThr#${userId}`,
  agentWithinFiveMinutes: (userId: string) => `agR5#${userId}`,
  agentMinutes: (userId: string, minutes: number) => `ha#${userId}#${minutes}`,
} as const;

const finalMessageEvents = new Set<EventType>([
  "MessageDelivered",
  "MessageUndelivered",
  "MessageFailed",
  "MessageUnknown",
  "MessageBlocked",
]);
/** Final receipts that prove the carrier accepted the message. */
const acceptedOutcomes = new Set<EventType>(["MessageDelivered", "MessageUndelivered", "MessageUnknown"]);
const failedOrBlocked = new Set<EventType>(["MessageUndelivered", "MessageFailed", "MessageBlocked"]);
const finalCallEvents = new Set<EventType>(["CallCompleted", "CallBusy", "CallNoAnswer", "CallFailed", "CallCanceled"]);
const automationSuccess = new Set(["Succeeded", "Success", "Completed"]);

/** What an event means for analytics, before any storage is read. */
export interface EventEffect {
  /** Counters of the event's own time bucket. */
  counters: Counters;
  /** A completed call: its talk seconds are read from the call (events carry no duration). */
  completedCallId?: string;
  /** A lead accepted (LeadCreated): counted in the bucket of its creation time. */
  leadCreated?: { leadId: string };
  /** An outbound message sent or outbound call answered for a lead: a response candidate. */
  response?: { leadId: string; at: number };
  /** A lead was assigned to this user (the leaderboard counts its first assignment). */
  assigned?: { leadId: string; userId: string };
  /** A message reached the handset (activation milestone). */
  delivered?: boolean;
}

/** Event types (and the Automation category) that can change any figure; the rest are skipped without a write. */
export const countedEventTypes = [
  "LeadCreated",
  "MessageSent",
  "MessageReceived",
  ...finalMessageEvents,
  "CallQueued",
  "CallReceived",
  "CallAnswered",
  "CallMissed",
  ...finalCallEvents,
];

/** The event fields `effectOf` reads (the exact edge reads project just these). */
export const countedEventFields = [
  "id",
  "eventType",
  "eventCategory",
  "direction",
  "leadId",
  "relatedEntityId",
  "billingStatus",
  "billableAmount",
  "status",
  "sentAt",
  "sendingStartedAt",
  "createdAt",
] as const;

/** The figures an event record changes (docs/analytics.md lists each definition). */
export function effectOf(event: EventRecord): EventEffect {
  const counters: Counters = {};
  const add = (name: string, amount = 1) => {
    if (amount !== 0) counters[name] = (counters[name] ?? 0) + amount;
  };
  const effect: EventEffect = { counters };
  const outbound = event.direction === "Outbound";
  // Stored records carry a string; the comparisons below are checked against the declared event types.
  const type = event.eventType as EventType;
  if (type === "LeadCreated" && event.leadId) effect.leadCreated = { leadId: event.leadId };
  if (type === "LeadAssigned" && event.leadId && event.relatedEntityId)
    effect.assigned = { leadId: event.leadId, userId: event.relatedEntityId };
  // Sent: the carrier took the message. A delivery receipt can overtake the Sent receipt (the
  // message then never records MessageSent), so a final receipt without `sentAt` counts instead.
  const acceptedUnseen = outbound && !event.sentAt && acceptedOutcomes.has(type);
  if ((type === "MessageSent" && outbound) || acceptedUnseen) {
    add(counter.smsSent);
    const at = Date.parse(event.sentAt ?? event.sendingStartedAt ?? event.createdAt);
    if (event.leadId) effect.response = { leadId: event.leadId, at };
  }
  if (type === "MessageReceived") add(counter.smsReceived);
  if (failedOrBlocked.has(type) && outbound) add(counter.smsFailedOrBlocked);
  if (type === "MessageDelivered") {
    add(counter.smsDelivered);
    effect.delivered = true;
  }
  if (type === "CallQueued" && outbound) add(counter.callsPlaced);
  if (type === "CallReceived") add(counter.callsReceived);
  if (type === "CallAnswered") {
    add(counter.callsAnswered);
    if (outbound && event.leadId) effect.response = { leadId: event.leadId, at: Date.parse(event.createdAt) };
  }
  if (type === "CallMissed") add(counter.callsMissed);
  if (type === "CallCompleted" && event.relatedEntityId) effect.completedCallId = event.relatedEntityId;
  if ((finalMessageEvents.has(type) || finalCallEvents.has(type)) && event.billingStatus === "Charged") {
    add(counter.spend, toUnits(event.billableAmount));
  }
  if (event.eventCategory === "Automation" && event.status) {
    if (automationSuccess.has(event.status)) add(counter.automationSucceeded);
    if (event.status === "Failed") add(counter.automationFailed);
    if (automationSuccess.has(event.status) || event.status === "Failed") add(counter.automationRuns);
  }
  return effect;
}

/** A decimal amount (number or string) in 1/10 000 units. */
export function toUnits(amount: number | string | null | undefined): number {
  if (amount === null || amount === undefined || amount === "") return 0;
  const value = typeof amount === "number" ? amount : Number(amount);
  return Number.isFinite(value) ? Math.round(value * amountScale) : 0;
}

/** 1/10 000 units back to a 4-place decimal string ("12.3400"). */
export function fromUnits(units: number): string {
  const negative = units < 0;
  const digits = String(Math.abs(Math.round(units))).padStart(5, "0");
  return `${negative ? "-" : ""}${digits.slice(0, -4)}.${digits.slice(-4)}`;
}

/** Who a lead is counted under: its source and the agent it was assigned to when counted (null: unassigned). */
export interface LeadDimensions {
  sourceId: string | null | undefined;
  assignedUserId?: string | null;
}

/** What a counted lead adds in the bucket of its creation time. */
export function leadCounters(lead: LeadDimensions, priceUnits: number): Counters {
  const source = lead.sourceId || noSource;
  const counters: Counters = { [counter.leads]: 1, [counter.sourceLeads(source)]: 1 };
  if (priceUnits) counters[counter.sourcePrice(source)] = priceUnits;
  if (lead.assignedUserId) counters[counter.agentLeads(lead.assignedUserId)] = 1;
  return counters;
}

/** Whole seconds from the lead's creation to its first response (never negative). */
export function responseSecondsOf(leadCreatedAt: number, respondedAt: number): number {
  return Math.max(0, Math.floor((respondedAt - leadCreatedAt) / 1000));
}

/** What a lead's first response adds in the bucket of the lead's creation time. */
export function responseCounters(lead: LeadDimensions, seconds: number): Counters {
  const source = lead.sourceId || noSource;
  const minutes = Math.floor(seconds / 60);
  const counters: Counters = {
    [counter.responded]: 1,
    [counter.responseSeconds]: seconds,
    [counter.minutes(minutes)]: 1,
    [counter.sourceResponded(source)]: 1,
    [counter.sourceMinutes(source, minutes)]: 1,
  };
  if (seconds <= 5 * 60) counters[counter.withinFiveMinutes] = 1;
  if (seconds <= missedThresholdMinutes * 60) counters[counter.withinThreshold] = 1;
  const agent = lead.assignedUserId;
  if (agent) {
    counters[counter.agentResponded(agent)] = 1;
    counters[counter.agentResponseSeconds(agent)] = seconds;
    counters[counter.agentMinutes(agent, minutes)] = 1;
    if (seconds <= 5 * 60) counters[counter.agentWithinFiveMinutes(agent)] = 1;
    if (seconds <= missedThresholdMinutes * 60) counters[counter.agentWithinThreshold(agent)] = 1;
  }
  return counters;
}

/** Adds `more` into `into` (in place) and answers `into`. */
export function mergeCounters(into: Counters, more: Counters): Counters {
  for (const [name, amount] of Object.entries(more)) into[name] = (into[name] ?? 0) + amount;
  return into;
}
