import { ulid } from "ulid";
import * as v from "valibot";
import { getItem, table } from "#core/db/items";
import { createdWithin, keys } from "#core/db/keys";
import { queryPages } from "#core/db/query";
import type { Transaction } from "#core/db/transact";
import { EventEntity, type StoredEvent } from "#core/db/entities/events";
import type { EventType } from "#core/events/types";
import { directions, senderSelectionReasons, timelineTypes, trafficTypes } from "#core/shared/enums";
import { nowIso, timestamp, wholeNumber } from "#core/shared/ids";
import { countMetric, currentCorrelationId } from "#core/observability/index";

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
  const implied = impliedFields(event);
  const stored = {
    organizationId,
    ...Object.fromEntries(
      Object.entries(event).filter(([name, value]) => value !== null && !isImplied(implied, name, value)),
    ),
  } as StoredEvent;
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

export const Events = {
  record: recordEvent,

  /** One event record of the organization; undefined when absent. */
  async find(organizationId: string, eventId: string): Promise<EventRecord | undefined> {
    const item = await getItem(keys.event(organizationId, eventId));
    return item ? toEventRecord(item) : undefined;
  },

  /**
   * The organization's events created in [fromMs, toMs], oldest first, a page
   * at a time (event ids are ULIDs of their time, so this is one key range of
   * the write-sharded creation index, its shards merged). `where` narrows what
   * each page carries (checked on the events read: the index holds only keys).
   */
  createdWithin(
    organizationId: string,
    fromMs: number,
    toMs: number,
    where?: (item: Record<string, unknown>) => boolean,
  ): AsyncGenerator<EventRecord[]> {
    const { lower, upper } = createdWithin(EventEntity.sortKey("byCreation", {}), fromMs, toMs);
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
  },

  /**
   * The one way to record an event inside a transaction: adds its put (never
   * overwriting: an id fixed by the producer makes a repeat fail the
   * transaction) and registers what follows a stored event to run after the
   * commit. The analytics rollups need nothing here: the stream aggregator
   * counts every stored event.
   */
  item(organizationId: string, input: EventRecordInput, transaction: Transaction): EventRecord {
    const { put, event } = eventItem(organizationId, input);
    transaction.put("event", put);
    transaction.afterCommit(() => eventRecorded(organizationId, event));
    return event;
  },
};

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
 * which put a sending, sent or delivered message's event over 1 KB, two write units more in its transaction. An item
 * stored with these fields (before issue 27) reads the same. Every reader of an event item goes through
 * `toEventRecord` (the API, webhooks, analytics, exports); the stream filters name only `entity` and `eventType`.
 */
function impliedFields(item: Record<string, unknown>): Partial<Record<keyof EventRecord, unknown>> | undefined {
  if (item.eventCategory !== "Sms") return undefined;
  return {
    timelineCategory: "Message",
    timelineType: "Message",
    relatedEntityType: "Message",
    trafficType: "RealLead",
    media: [],
    outboundPhoneNumberId: item.direction === "Outbound" ? (item.fromPhoneNumberId ?? null) : null,
  };
}

function isImplied(implied: ReturnType<typeof impliedFields>, name: string, value: unknown): boolean {
  if (!implied || !(name in implied)) return false;
  const expected = implied[name as keyof EventRecord];
  return Array.isArray(expected) ? Array.isArray(value) && value.length === 0 : value === expected;
}

/** A stored item (or input) in the listed shape, every absent field null (or, for a message's event, implied). */
export function toEventRecord(item: Record<string, unknown>): EventRecord {
  const implied = impliedFields(item) ?? {};
  return Object.fromEntries(fieldNames.map((name) => [name, item[name] ?? implied[name] ?? null])) as EventRecord;
}

async function* mapPages<T, U>(pages: AsyncGenerator<T>, map: (page: T) => U): AsyncGenerator<U> {
  for await (const page of pages) yield map(page);
}
