import * as v from "valibot";
import type { Actor } from "#core/auth/actor";
import { NumberHealthEntity } from "#core/db/entities/messaging";
import { computed } from "#core/db/expression";
import { table } from "#core/db/items";
import { queryAll } from "#core/db/query";
import { ConflictError } from "#core/errors";
import type { Message } from "#core/messaging/model";
import * as PhoneNumbers from "#core/messaging/phone-numbers";
import { type PhoneNumber } from "#core/messaging/phone-numbers";
import * as MessagingEvents from "#core/messaging/timeline";
import { nowIso, timestamp } from "#core/shared/ids";

/**
 * Number health: each number's delivery outcomes counted from its receipts in
 * 10-minute buckets (one item per number and bucket, counters added, kept 8
 * days), read over a rolling window. A spike of carrier filtering (Twilio
 * 30007 filtered, 30034 unregistered; Telnyx's codes of the same meaning) pauses the number: it is left out of
 * sender choice (its conversations move to the pool's other numbers), an event
 * and the `phone_number.paused` webhook say so, the analytics report lists it
 * under needsAttention, and the owner resumes it (`POST
 * /phone-numbers/{id}/resume`) once the cause is fixed.
 */

/** The error codes counted one by one (the rest count as `otherErrors`). */
export const trackedErrorCodes = ["30007", "30034", "30003", "21610"] as const;
type TrackedErrorCode = (typeof trackedErrorCodes)[number];
/**
 * Another carrier's codes counted under the Twilio code of the same meaning, so a Telnyx number's filtering pauses it
 * just the same and the report keeps one set of keys. Source: Telnyx's Messaging Error Code Reference,
 * https://developers.telnyx.com/docs/messaging/messages/error-codes (delivery errors, 40xxx, reported in
 * `message.finalized`). Only codes whose documented meaning is Twilio's are mapped: Telnyx documents no "handset
 * unreachable" (Twilio 30003, "switched off or otherwise unavailable"); its nearest, 40005 (expired en route), 40006
 * (the recipient's carrier server is down) and 40001 (landline or non-routable), say something else and count as other.
 */
const equivalentCodes: Readonly<Record<string, TrackedErrorCode>> = {
  "40002": "30007", // Telnyx: blocked as spam (temporary)
  "40003": "30007", // Telnyx: blocked as spam (permanent)
  "40015": "30007", // Telnyx: its own spam filter
  "40010": "30034", // Telnyx: "Not 10DLC registered" (10DLC-specific errors; the action it names: register for 10DLC)
  "40300": "21610", // Telnyx: blocked due to a STOP from the recipient
};
/** The tracked code a carrier's error code counts under, if any. */
export function trackedCodeOf(code: string | null | undefined): TrackedErrorCode | undefined {
  if (!code) return undefined;
  return (trackedErrorCodes as readonly string[]).includes(code) ? (code as TrackedErrorCode) : equivalentCodes[code];
}
/** Codes that mean the carriers are filtering the number's traffic. */
const filteringCodes = new Set(["30007", "30034"]);

const BUCKET_MS = 10 * 60_000;
/** The window a spike is judged over, and the report's rolling window. */
export const spikeWindowMs = 30 * 60_000;
export const reportWindowMs = 24 * 60 * 60_000;
/** A spike: at least this many filtered messages in the spike window, and at least this share of its final outcomes. */
export const pauseAfterFiltered = 5;
export const pauseAtFilteredShare = 0.2;
const KEEP_SECONDS = 8 * 24 * 3600;

export const NumberHealthSchema = v.object({
  phoneNumberId: v.string(),
  phoneNumber: v.string(),
  status: v.picklist(["Active", "Paused"]),
  paused: v.nullable(v.object({ at: timestamp, reason: v.string() })),
  windowStart: timestamp,
  windowEnd: timestamp,
  /** Outbound messages that reached a final outcome at the carrier in the window. */
  finalOutcomes: v.number(),
  delivered: v.number(),
  /** delivered / finalOutcomes; null with no outcome yet. */
  deliveryRate: v.nullable(v.number()),
  /** Final errors by Twilio code; another carrier's codes count under the code of the same meaning (Telnyx 40002, 40003 and 40015 as 30007, 40010 as 30034, 40300 as 21610). */
  errors: v.pipe(
    v.object({ "30007": v.number(), "30034": v.number(), "30003": v.number(), "21610": v.number(), other: v.number() }),
    v.description(
      "Final errors by Twilio code in the window; Telnyx codes count under the code of the same meaning (40002, 40003 and 40015 as 30007; 40010 as 30034; 40300 as 21610). Telnyx documents no equivalent of 30003 (unreachable handset): its other codes count as other.",
    ),
  ),
  /** Contacts who opted out (STOP) in a conversation on this number. */
  optOuts: v.number(),
  /** optOuts / finalOutcomes; null with no outcome yet. */
  optOutRate: v.nullable(v.number()),
});
export type NumberHealthReport = v.InferOutput<typeof NumberHealthSchema>;

type Counts = { finals: number; delivered: number; optOuts: number; other: number } & Record<TrackedErrorCode, number>;

/** Counts an outbound message's final outcome at the carrier for its number; a filtering error may pause the number. */
export async function recordOutcome(organizationId: string, message: Message): Promise<void> {
  if (message.direction !== "Outbound" || !message.fromPhoneNumberId || !message.providerMessageId) return;
  if (message.status !== "Delivered" && message.status !== "Undelivered" && message.status !== "Failed") return;
  const code = trackedCodeOf(message.errorCode);
  const counter = message.status === "Delivered" ? "delivered" : code ? `e${code}` : "other";
  await add(organizationId, message.fromPhoneNumberId, ["finals", counter]);
  if (code && filteringCodes.has(code)) await pauseOnSpike(organizationId, message.fromPhoneNumberId);
}

/** Counts a contact's opt-out against the number of their conversation. */
export async function recordOptOut(organizationId: string, phoneNumberId: string): Promise<void> {
  await add(organizationId, phoneNumberId, ["optOuts"]);
}

/** `GET /phone-numbers/{id}/health`: the rolling 24-hour window. */
export async function report(actor: Actor, phoneNumberId: string): Promise<NumberHealthReport> {
  const number = await PhoneNumbers.fromId(actor, phoneNumberId);
  return reportOf(actor.organizationId, number, Date.now());
}

/** Sums of several numbers' windows (a campaign's opt-out rate). */
export async function totals(
  organizationId: string,
  phoneNumberIds: readonly string[],
): Promise<{ finalOutcomes: number; optOuts: number }> {
  const now = Date.now();
  const all = await Promise.all(phoneNumberIds.map((id) => counts(organizationId, id, now - reportWindowMs, now)));
  return {
    finalOutcomes: all.reduce((sum, c) => sum + c.finals, 0),
    optOuts: all.reduce((sum, c) => sum + c.optOuts, 0),
  };
}

/** `POST /phone-numbers/{id}/resume`: the owner puts a paused number back in the pool. */
export async function resume(actor: Actor, phoneNumberId: string): Promise<PhoneNumber> {
  const number = await PhoneNumbers.fromId(actor, phoneNumberId);
  if (!number.paused) throw new ConflictError(`${number.phoneNumber} is not paused.`);
  if (await PhoneNumbers.setPaused(actor.organizationId, phoneNumberId, null)) {
    await MessagingEvents.record(actor.organizationId, {
      eventType: "PhoneNumberResumed",
      eventCategory: "PhoneNumber",
      description: `Phone number ${number.phoneNumber} resumed: it sends again.`,
      relatedEntityType: "PhoneNumber",
      relatedEntityId: number.id,
      fromPhoneNumberId: number.id,
      fromPhoneNumber: number.phoneNumber,
      actor,
    });
  }
  return PhoneNumbers.fromId(actor, phoneNumberId);
}

async function pauseOnSpike(organizationId: string, phoneNumberId: string): Promise<void> {
  const now = Date.now();
  const recent = await counts(organizationId, phoneNumberId, now - spikeWindowMs, now);
  const filtered = [...filteringCodes].reduce((sum, code) => sum + recent[code as keyof Counts], 0);
  if (filtered < pauseAfterFiltered || filtered < pauseAtFilteredShare * recent.finals) return;
  const reason =
    `${filtered} of its last ${recent.finals} messages were filtered by carriers (30007/30034, Telnyx 40002/40003/40015/40010) within ${spikeWindowMs / 60_000} minutes. ` +
    "Check the content (links, shorteners, wording) and its 10DLC campaign, then resume it.";
  const at = nowIso();
  if (!(await PhoneNumbers.setPaused(organizationId, phoneNumberId, { at, reason }))) return;
  const number = await PhoneNumbers.find(organizationId, phoneNumberId);
  await MessagingEvents.record(organizationId, {
    eventType: "PhoneNumberPaused",
    eventCategory: "PhoneNumber",
    description: `Phone number ${number?.phoneNumber ?? phoneNumberId} paused: ${reason}`,
    relatedEntityType: "PhoneNumber",
    relatedEntityId: phoneNumberId,
    fromPhoneNumberId: phoneNumberId,
    ...(number ? { fromPhoneNumber: number.phoneNumber } : {}),
    statusReason: "FilteringSpike",
  });
}

async function reportOf(organizationId: string, number: PhoneNumber, now: number): Promise<NumberHealthReport> {
  const c = await counts(organizationId, number.id, now - reportWindowMs, now);
  const rate = (part: number) => (c.finals > 0 ? Math.round((part / c.finals) * 10_000) / 10_000 : null);
  return {
    phoneNumberId: number.id,
    phoneNumber: number.phoneNumber,
    status: number.paused ? "Paused" : "Active",
    paused: number.paused,
    windowStart: new Date(now - reportWindowMs).toISOString(),
    windowEnd: new Date(now).toISOString(),
    finalOutcomes: c.finals,
    delivered: c.delivered,
    deliveryRate: rate(c.delivered),
    errors: { "30007": c["30007"], "30034": c["30034"], "30003": c["30003"], "21610": c["21610"], other: c.other },
    optOuts: c.optOuts,
    optOutRate: rate(c.optOuts),
  };
}

const bucketOf = (ms: number) => new Date(Math.floor(ms / BUCKET_MS) * BUCKET_MS).toISOString().slice(0, 16);

async function add(organizationId: string, phoneNumberId: string, counters: string[]): Promise<void> {
  await table.update(
    NumberHealthEntity.update(
      { organizationId, phoneNumberId, bucket: bucketOf(Date.now()) },
      {
        entity: NumberHealthEntity.name,
        expiresAt: computed.ifAbsent(Math.floor(Date.now() / 1000) + KEEP_SECONDS),
        ...Object.fromEntries(counters.map((counter) => [counter, computed.increment()])),
      },
    ),
  );
}

async function counts(organizationId: string, phoneNumberId: string, fromMs: number, toMs: number): Promise<Counts> {
  const bound = (ms: number) => NumberHealthEntity.sortKey("collection", { phoneNumberId, bucket: bucketOf(ms) });
  const items = await queryAll(
    NumberHealthEntity.query(
      "collection",
      { organizationId, phoneNumberId },
      { range: { between: [bound(fromMs), bound(toMs)] }, consistent: true },
    ),
  );
  const sum = (name: string) => items.reduce((total, item) => total + Number(item[name] ?? 0), 0);
  return {
    finals: sum("finals"),
    delivered: sum("delivered"),
    optOuts: sum("optOuts"),
    other: sum("other"),
    "30007": sum("e30007"),
    "30034": sum("e30034"),
    "30003": sum("e30003"),
    "21610": sum("e21610"),
  };
}
