import { ulid } from "ulid";
import * as v from "valibot";
import { getItem, table } from "#core/db/items";
import { createdWithin as sortKeysCreatedWithin, keys } from "#core/db/keys";
import { queryPages } from "#core/db/query";
import type { Transaction } from "#core/db/transact";
import { EventEntity, type StoredEvent } from "#core/db/entities/events";
import type { EventType } from "#core/events/types";
import { directions, senderSelectionReasons, timelineTypes, trafficTypes } from "#core/shared/enums";
import { nowIso, timestamp, wholeNumber } from "#core/shared/ids";
import { currentCorrelationId } from "#core/observability/index";
import { countMetric } from "#core/observability/metrics";

const text = v.nullable(v.string());
const time = v.nullable(timestamp);

/** An event record as listed (spec 2.5); fields an event does not concern are null. */
export const EventRecordSchema = v.object({
  id: v.string(),
  eventType: v.string(),
  eventCategory: v.string(),
  timelineCategory: text,
  timelineType: v.nullable(v.picklist(timelineTypes)),
  description: text,
  summary: text,
  conversationId: text,
  leadId: text,
  /**
   * Whose event it is: the assignee of its lead or conversation when it was recorded (a message's or call's owner
   * for theirs), kept when the lead moves on (docs/routing.md); null: nobody's, or about no lead.
   */
  assignedUserId: text,
  relatedEntityType: text,
  relatedEntityId: text,
  media: v.nullable(
    v.array(
      v.object({
        url: v.string(),
        contentType: v.string(),
        size: v.optional(v.number()),
        sha256: v.optional(v.string()),
        fileName: v.optional(v.string()),
      }),
    ),
  ),
  direction: v.nullable(v.picklist(directions)),
  status: text,
  statusReason: text,
  trafficType: v.nullable(v.picklist(trafficTypes)),
  selectionReason: v.nullable(v.picklist(senderSelectionReasons)),
  fromPhoneNumberId: text,
  outboundPhoneNumberId: text,
  fromPhoneNumber: text,
  toPhoneNumber: text,
  wasManuallyOverridden: v.nullable(v.boolean()),
  campaignId: text,
  sourceId: text,
  complianceAction: text,
  billingStatus: text,
  errorCode: text,
  billableAmount: v.nullable(v.union([v.number(), v.string()])),
  retryCount: v.nullable(wholeNumber),
  queuedAt: time,
  sendingStartedAt: time,
  sentAt: time,
  deliveredAt: time,
  receivedAt: time,
  failedAt: time,
  undeliverableAt: time,
  blockedAt: time,
  nextRetryAt: time,
  scheduledFor: time,
  canceledAt: time,
  createdAt: timestamp,
  scheduledReason: text,
  cancelReason: text,
  createdBy: text,
  actorUserId: text,
  actorDisplayName: text,
  actorEmail: v.nullable(v.pipe(v.string(), v.email())),
});
export type EventRecord = v.InferOutput<typeof EventRecordSchema>;

/** What a producer supplies: type and category, and any other field of the record (id and time are filled in). */
export type EventRecordInput = Partial<{
  [K in keyof Omit<EventRecord, "eventType">]: Exclude<EventRecord[K], null>;
}> & {
  eventType: EventType;
  eventCategory: string;
};

const fieldNames = Object.keys(EventRecordSchema.entries) as (keyof EventRecord)[];

/**
 * The stored item of an event. Its id is a ULID of its `createdAt`, so the
 * organization's events read newest first straight from the sort key, and one
 * lead's events from gsi1. Exposed for producers that must write the event in
 * the same transaction as the change it records.
 */
export function eventItem(organizationId: string, input: EventRecordInput) {
  const createdAt = input.createdAt ?? nowIso();
  const id = input.id ?? ulid(Date.parse(createdAt));
  const event = toEventRecord({ ...input, id, createdAt });
  const correlationId = currentCorrelationId();
  const stored = { organizationId, ...storedFields(event) } as StoredEvent;
  // The journey this event belongs to (core/observability); stored for operators, not part of the API's event shape.
  const put = EventEntity.create(stored, correlationId ? { correlationId } : {});
  return { item: put.Item, event, put };
}

/**
 * The `assignedUserId` of an event about a lead, conversation, message or call: that one's assignee (owner) as the
 * event is recorded, which the event keeps (docs/routing.md). Nothing for nobody's.
 */
export function ownerOf(subject: { assignedUserId?: string | null }): { assignedUserId?: string } {
  return subject.assignedUserId ? { assignedUserId: subject.assignedUserId } : {};
}

/** Stores one event record of the organization (a put that never overwrites); the analytics aggregator counts it from the table's stream. */
export async function recordEvent(organizationId: string, input: EventRecordInput): Promise<EventRecord> {
  const { put, event } = eventItem(organizationId, input);
  await table.put(put);
  eventRecorded(organizationId, event);
  return event;
}

export { recordEvent as record };

/** One event record of the organization; undefined when absent. */
export async function find(organizationId: string, eventId: string): Promise<EventRecord | undefined> {
  const item = await getItem(keys.event(organizationId, eventId));
  return item ? toEventRecord(item) : undefined;
}

/**
 * The organization's events created in [fromMs, toMs], oldest first, a page
 * at a time (event ids are ULIDs of their time, so this is one key range of
 * the write-sharded creation index, its shards merged). `where` narrows what
 * each page carries (checked on the events read: the index holds only keys).
 */
export function createdWithin(
  organizationId: string,
  fromMs: number,
  toMs: number,
  where?: (item: Record<string, unknown>) => boolean,
): AsyncGenerator<EventRecord[]> {
  const { lower, upper } = sortKeysCreatedWithin(EventEntity.sortKey("byCreation", {}), fromMs, toMs);
  return mapPages(
    queryPages(
      EventEntity.query(
        "byCreation",
        { organizationId },
        { range: { between: [lower, upper] }, forward: true, ...(where ? { where } : {}) },
      ),
    ),
    (items) => items.map(toEventRecord),
  );
}

/**
 * The one way to record an event inside a transaction: adds its put (never
 * overwriting: an id fixed by the producer makes a repeat fail the
 * transaction) and registers what follows a stored event to run after the
 * commit. The analytics rollups need nothing here: the stream aggregator
 * counts every stored event.
 */
export function item(organizationId: string, input: EventRecordInput, transaction: Transaction): EventRecord {
  const { put, event } = eventItem(organizationId, input);
  transaction.put("event", put);
  transaction.afterCommit(() => eventRecorded(organizationId, event));
  return event;
}

/**
 * What follows every stored event, whoever wrote it (alone or in a
 * transaction): its business metric (never throws). The analytics rollups are
 * not updated here: the stream aggregator (core/analytics/aggregator) counts
 * every stored event off the request path.
 * The metric is named after the event type (`LeadCreated`, `MessageDelivered`,
 * `CallCompleted`, `AutomationRunFailed` …), with a `reason` dimension when the
 * event says why (compliance action, billing status, provider error code).
 */
function eventRecorded(organizationId: string, event: EventRecord): void {
  const reason = event.errorCode ?? event.complianceAction ?? event.billingStatus;
  countMetric(event.eventType, reason ? { reason: String(reason) } : {});
  if (event.errorCode) countMetric("ProviderErrors", { code: String(event.errorCode) });
}

/**
 * What a message's event (`eventCategory` "Sms", recorded only by `messageEventInput` in core/messaging/timeline.ts)
 * always holds, so its item leaves it out and `toEventRecord` reads it back (issue 27): ~140 bytes of a ~1.1 KB item,
 * which put a sending, sent or delivered message's event over 1 KB, two write units more in its transaction. Its
 * `description` too (eighth pass) where it is the one `messageEventDescription` makes from the event's own fields (an
 * MMS's or a caller's own is stored), its `status` where the event type names it, and the system's actor fields. An
 * item stored with these fields (before issue 27) reads the same: every message event stored them all. Every reader
 * of an event item goes through `toEventRecord` (the API, webhooks, analytics, exports); the stream filters name only
 * `entity` and `eventType`.
 */
function impliedFields(item: Record<string, unknown>): Partial<Record<keyof EventRecord, unknown>> | undefined {
  if (item.eventCategory !== "Sms") return undefined;
  const direction = storedValue(item, "direction");
  const fromPhoneNumberId = storedValue(item, "fromPhoneNumberId");
  return {
    timelineCategory: "Message",
    timelineType: "Message",
    relatedEntityType: "Message",
    trafficType: "RealLead",
    media: [],
    outboundPhoneNumberId: direction === "Outbound" ? (fromPhoneNumberId ?? null) : null,
    // "MessageDelivered" is recorded with the message Delivered; "MessageAccepted" (Pending) and the like store theirs.
    status: String(item.eventType).replace(/^Message/, ""),
    // Recorded by the system (consumers, callbacks, the sweeper): messaging always stored both (eventActorFields).
    createdBy: "system",
    actorDisplayName: "System",
    description: messageEventDescription(
      {
        channel: "Sms",
        direction,
        // A number the record holds as null is absent from the item: read back as the null it was written as.
        fromPhoneNumber: storedValue(item, "fromPhoneNumber") ?? null,
        toPhoneNumber: storedValue(item, "toPhoneNumber") ?? null,
        statusReason: storedValue(item, "statusReason"),
      },
      String(item.eventType),
    ),
  };
}

/**
 * A message event's description: "SMS to +1… delivered", "MMS from +1… received: <reason>". Written by messaging
 * (core/messaging/timeline.ts) and, for an SMS's event whose item leaves it out, read back from the event's fields:
 * changing it changes what those stored events answer.
 */
export function messageEventDescription(
  message: {
    channel?: unknown;
    direction?: unknown;
    fromPhoneNumber?: unknown;
    toPhoneNumber?: unknown;
    statusReason?: unknown;
  },
  eventType: string,
): string {
  const to = message.direction === "Inbound" ? `from ${message.fromPhoneNumber}` : `to ${message.toPhoneNumber}`;
  const reason = message.statusReason ? `: ${message.statusReason}` : "";
  return `${message.channel === "Mms" ? "MMS" : "SMS"} ${to} ${eventType.replace(/^Message/, "").toLowerCase()}${reason}`;
}

function isImplied(implied: ReturnType<typeof impliedFields>, name: string, value: unknown): boolean {
  if (!implied || !(name in implied)) return false;
  const expected = implied[name as keyof EventRecord];
  return Array.isArray(expected) ? Array.isArray(value) && value.length === 0 : value === expected;
}

/**
 * Stored names of an event's longer fields (issue 27, eighth pass, as for messages in core/messaging/store.ts): every
 * event is written once, billed by its whole size with attribute names, two units per started KB in its transaction,
 * and a sending, sent or delivered message's event with a lead, a campaign and its sender's pick was ~1.2 KB. Only
 * fields read from the raw item keep their names: the index keys' (`id`, `eventType`, `leadId`), the list's in-memory
 * narrowing (`eventCategory`, `conversationId`, core/events/list.ts), the stream filters (`eventType`), and
 * `createdAt`. Items stored before hold the long names; `toEventRecord` reads both, the stored name first, and a raw
 * reader that names other fields reads `eventAttributes` (the automation trigger outbox's stream images). Events are
 * never updated, so no item holds both.
 */
export const eventStoredNames: Readonly<Partial<Record<keyof EventRecord, string>>> = {
  timelineCategory: "tc",
  timelineType: "tt",
  description: "de",
  summary: "su",
  assignedUserId: "au",
  relatedEntityType: "rt",
  media: "me",
  direction: "di",
  status: "st",
  statusReason: "sr",
  trafficType: "tf",
  selectionReason: "sl",
  fromPhoneNumberId: "fi",
  outboundPhoneNumberId: "oi",
  wasManuallyOverridden: "mo",
  campaignId: "cp",
  sourceId: "so",
  complianceAction: "ca",
  billingStatus: "bs",
  billableAmount: "ba",
  retryCount: "rc",
  queuedAt: "qa",
  sendingStartedAt: "ga",
  sentAt: "sa",
  deliveredAt: "da",
  receivedAt: "ra",
  failedAt: "fa",
  undeliverableAt: "ua",
  blockedAt: "ka",
  nextRetryAt: "nr",
  scheduledFor: "sf",
  canceledAt: "xa",
  relatedEntityId: "ri",
  fromPhoneNumber: "fn",
  toPhoneNumber: "tn",
  errorCode: "ec",
  scheduledReason: "sd",
  cancelReason: "cr",
  createdBy: "cb",
  actorUserId: "ai",
  actorDisplayName: "ad",
  actorEmail: "ae",
};

const storedName = (field: string): string => eventStoredNames[field as keyof EventRecord] ?? field;

/** A field of a stored item (or input): under its stored name when the item has it, else under its field name. */
function storedValue(item: Record<string, unknown>, field: keyof EventRecord): unknown {
  const name = storedName(field);
  return name in item ? item[name] : item[field];
}

/**
 * The record's times a message's event carries (`queuedAt` … `canceledAt`, all ISO instants made by `toISOString`) are
 * stored as epoch milliseconds (issue 27, eighth pass): 8 bytes instead of 24, four of them on a delivered message's
 * event. A time that would not read back the same (another form of ISO 8601) is stored as written. `createdAt` keeps
 * its text: the automation trigger outbox reads it from the stream image.
 */
const epochTimes: ReadonlySet<string> = new Set(
  Object.entries(EventRecordSchema.entries)
    .filter(([name, schema]) => schema === time && name !== "createdAt")
    .map(([name]) => name),
);

const asEpoch = (value: string): string | number => {
  const ms = Date.parse(value);
  return Number.isFinite(ms) && new Date(ms).toISOString() === value ? ms : value;
};

/**
 * An event record's fields as its item stores them: under their stored names, times as epoch milliseconds, without
 * nulls or what is implied (the record was read from its input by `toEventRecord`, so a field its input left out
 * holds what is implied already).
 */
function storedFields(event: EventRecord): Record<string, unknown> {
  const implied = impliedFields(event);
  return Object.fromEntries(
    Object.entries(event)
      .filter(([name, value]) => value !== null && !isImplied(implied, name, value))
      .map(([name, value]) => [
        storedName(name),
        epochTimes.has(name) && typeof value === "string" ? asEpoch(value) : value,
      ]),
  );
}

/** A stored item (or input) in the listed shape, every absent field null (or, for a message's event, implied). */
export function toEventRecord(item: Record<string, unknown>): EventRecord {
  const implied = impliedFields(item) ?? {};
  return Object.fromEntries(
    fieldNames.map((name) => {
      const value = storedValue(item, name);
      if (typeof value === "number" && epochTimes.has(name)) return [name, new Date(value).toISOString()];
      return [name, value ?? implied[name] ?? null];
    }),
  ) as EventRecord;
}

const shortStoredNames = new Set<string>(Object.values(eventStoredNames));

/**
 * A stored event item with its record's fields under their field names (nulls left out, as an item stores them) beside
 * its other attributes (`organizationId`, `correlationId`, keys): for a reader of raw items that names fields, such as
 * the automation trigger outbox and the agent alerts reading stream images (core/automations/runs/trigger-outbox.ts,
 * core/alerts).
 */
export function eventAttributes(item: Record<string, unknown>): Record<string, unknown> {
  return {
    ...Object.fromEntries(Object.entries(item).filter(([name]) => !shortStoredNames.has(name))),
    ...Object.fromEntries(Object.entries(toEventRecord(item)).filter(([, value]) => value !== null)),
  };
}

async function* mapPages<T, U>(pages: AsyncGenerator<T>, map: (page: T) => U): AsyncGenerator<U> {
  for await (const page of pages) yield map(page);
}
