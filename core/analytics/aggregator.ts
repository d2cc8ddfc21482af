import { decodeTime } from "ulid";
import { leadCountingFacts, leadCountingFactsRead, type LeadCountingFacts } from "#core/leads/facts";
import { leadAnswered } from "#core/leads/open-leads";
import { conditionally, getItems, getItemsAt, oneItem, readTogether, table, type Item } from "#core/db/items";
import { Transaction, TransactionConditionFailed, transact, type TransactItem } from "#core/db/transact";
import { computed, where } from "#core/db/expression";
import {
  AnalyticsCountedEntity,
  AnalyticsCountedSetEntity,
  AnalyticsEarlyResponseEntity,
  AnalyticsHistogramEntity,
  AnalyticsLeadEntity,
  AnalyticsMilestonesEntity,
} from "#core/db/entities/analytics";
import type { EventRecord } from "#core/events/index";
import {
  counter,
  effectOf,
  leadCounters,
  mergeCounters,
  responseCounters,
  responseSecondsOf,
  toUnits,
  type Counters,
  type EventEffect,
} from "#core/analytics/counters";
import {
  callSeconds,
  histogramUpdate,
  isFine,
  isHistogram,
  leadRecord,
  levels,
  levelsOf,
  maxCountersPerUpdate,
  rollupUpdate,
  rollupUpdates,
  unpackHistogram,
  type Level,
} from "#core/analytics/rollups";
import { markCountingStart } from "#core/analytics/minutes";

/**
 * The analytics aggregator: counts recorded events into the rollups off the
 * request path, fed by the table's stream in batches (functions/consumers/analytics-rollups).
 *
 * Counting once (docs/analytics.md): every counted fact has a marker written in
 * the same transaction as its counters, on condition it does not exist yet:
 * - an event's own counters: a small marker item `ANALYTICS#COUNTED#<event>`
 *   (expires by TTL after the stream's 24-hour retention, with a wide margin);
 *   the events of one message or call share one (`ANALYTICS#COUNTED#Message#<id>`, the set of its events counted,
 *   on condition none of the batch's is in it: its Sent and Delivered in one batch take one marker, issue 27);
 * - a lead accepted: the per-lead analytics item;
 * - a lead's first response: `respondedAt` on that per-lead item.
 * The markers and counters of one organization's batch go in one transaction,
 * with the counters summed per rollup item (a busy organization's batch of 100
 * events writes each hot minute/hour/day/week item once, not 100 times). A marker
 * that fails its condition drops its fact (already counted) and the rest is
 * retried, so a redelivered batch, a replay or a retried shard adds nothing.
 */

/** One recorded event as the stream delivers it. */
export interface RecordedEvent {
  organizationId: string;
  event: EventRecord;
}

/** Seconds a counted marker is kept: the stream redelivers for at most 24 hours. */
const markerTtlSeconds = 7 * 24 * 3600;
/** DynamoDB's limit of items in one transaction. */
const maxTransactionItems = 100;

/** Counters to add at a time (its hour, day and week; with `fineOnly`, only its minute and second). */
interface Addition {
  at: number;
  counters: Counters;
  fineOnly?: boolean;
}

/** One fact to count: its marker (a conditional write) and what it adds. */
interface Fact {
  marker: TransactItem;
  additions: Addition[];
  /** Events of one message or call under their shared marker, each with what it adds (to count some of them again). */
  grouped?: { subject: string; events: GroupedEvent[] };
  /**
   * A lead counted with its first response (`foldResponse`): the histograms and the early-response check its
   * transaction also carries, and the fact to count instead if one of those conditions fails.
   */
  folded?: { leadId: string; writes: TransactItem[]; plain: Fact };
}

interface GroupedEvent {
  eventId: string;
  additions: Addition[];
}

/**
 * Entities whose events share a marker: a message's or call's status events are few (a set of a few ids), where an
 * automation's or a lead's would grow without bound.
 */
const groupedSubjects = new Set(["Message", "Call"]);

/** The shared marker `event` is counted under (`Message#<id>`), or undefined for a marker of its own. */
function subjectOf(event: EventRecord, groupedFrom: number): string | undefined {
  if (!event.relatedEntityId || !event.relatedEntityType || !groupedSubjects.has(event.relatedEntityType)) return;
  // Before the organization's cutover an event keeps the marker of its own it may already have (minutes.ts).
  if (Date.parse(event.createdAt) < groupedFrom) return;
  return `${event.relatedEntityType}#${event.relatedEntityId}`;
}

/** The fact of `events` of one subject: one update of its marker, adding their ids on condition none is there yet. */
function groupedFact(organizationId: string, subject: string, events: GroupedEvent[]): Fact {
  const ids = events.map(({ eventId }) => eventId);
  const marker = AnalyticsCountedSetEntity.update(
    { organizationId, subject },
    {
      entity: AnalyticsCountedSetEntity.name,
      counted: computed.addToSet(...ids),
      expiresAt: Math.floor(Date.now() / 1000) + markerTtlSeconds,
    },
    { condition: where.all(...ids.map((id) => where.not(where.contains("counted", id)))) },
  );
  return {
    marker: { Update: marker },
    additions: events.flatMap(({ additions }) => additions),
    grouped: { subject, events },
  };
}

/** The batch's facts with those of one subject merged into one (in the place of its first). */
function mergeGrouped(organizationId: string, facts: Fact[]): Fact[] {
  const bySubject = new Map<string, GroupedEvent[]>();
  for (const fact of facts)
    if (fact.grouped)
      bySubject.set(fact.grouped.subject, [...(bySubject.get(fact.grouped.subject) ?? []), ...fact.grouped.events]);
  const merged: Fact[] = [];
  for (const fact of facts) {
    if (!fact.grouped) merged.push(fact);
    else if (bySubject.has(fact.grouped.subject)) {
      merged.push(groupedFact(organizationId, fact.grouped.subject, bySubject.get(fact.grouped.subject)!));
      bySubject.delete(fact.grouped.subject);
    }
  }
  return merged;
}

/**
 * What is left to count of grouped facts whose marker failed its condition (some of their events were counted
 * before): a consistent read of each marker, and a fact of the events not in it (none: the fact is dropped).
 */
async function uncountedParts(organizationId: string, failed: Fact[]): Promise<Map<Fact, Fact | undefined>> {
  const grouped = failed.filter((fact) => fact.grouped);
  const markers = await getItemsAt(
    grouped.map((fact) => AnalyticsCountedSetEntity.key({ organizationId, subject: fact.grouped!.subject })),
    { consistent: true },
  );
  return new Map(
    grouped.map((fact, index) => {
      const counted = new Set((markers[index]?.counted as Set<string> | undefined) ?? []);
      const { subject, events } = fact.grouped!;
      const left = events.filter(({ eventId }) => !counted.has(eventId));
      // Its condition failed, so one at least is there: never the same transaction again (the batch is retried).
      if (left.length === events.length)
        throw new Error(`The analytics marker of ${subject} refused uncounted events.`);
      return [fact, left.length > 0 ? groupedFact(organizationId, subject, left) : undefined];
    }),
  );
}

/** Counts a batch of recorded events, each once, whatever was counted before. Throws on storage errors (the batch is retried). */
export async function countRecordedEvents(recorded: RecordedEvent[]): Promise<void> {
  const byOrganization = new Map<string, Map<string, EventRecord>>();
  for (const { organizationId, event } of recorded) {
    const events = byOrganization.get(organizationId) ?? new Map<string, EventRecord>();
    events.set(event.id, event);
    byOrganization.set(organizationId, events);
  }
  await Promise.all(
    [...byOrganization].map(([organizationId, events]) => countForOrganization(organizationId, [...events.values()])),
  );
}

/**
 * What one organization's batch learnt while counting (one invocation, never kept past it): the counting facts of
 * the leads it read, and the leads whose response counting read their early response with their per-lead item.
 */
interface BatchMemo {
  facts: Map<string, LeadCountingFacts | undefined>;
  earlyRead: Set<string>;
}

/** A lead's counting facts, read once per batch (the consistent read a moment before is as fresh as a second one). */
async function factsOf(
  memo: BatchMemo,
  organizationId: string,
  leadId: string,
): Promise<LeadCountingFacts | undefined> {
  if (memo.facts.has(leadId)) return memo.facts.get(leadId);
  const facts = await leadCountingFacts(organizationId, leadId);
  memo.facts.set(leadId, facts);
  return facts;
}

async function countForOrganization(organizationId: string, events: EventRecord[]): Promise<void> {
  // Before anything is counted: from when this organization's minute rollups are complete and its events share
  // markers (once per warm instance).
  const groupedFrom = await markCountingStart(organizationId);
  const memo: BatchMemo = { facts: new Map(), earlyRead: new Set() };
  const effects = events.map((event) => ({ event, effect: effectOf(event) }));
  // One lead created and answered in this batch is counted with its first response, in one transaction. Its facts
  // are read with the histograms and early response that fold reads: one BatchGetItem (issue 27, eighth pass).
  const foldable = effects.find(({ effect }) =>
    effects.some(({ effect: other }) => other.leadCreated && other.leadCreated.leadId === effect.response?.leadId),
  )?.effect.response;
  const foldRead = foldable ? await readForFold(organizationId, foldable.leadId, memo) : undefined;
  const facts = await Promise.all(
    effects.map(({ event, effect }) => factOf(memo, organizationId, event, effect, groupedFrom)),
  );
  const counted = mergeGrouped(
    organizationId,
    facts.filter((fact): fact is Fact => fact !== undefined),
  );
  const foldAt = foldable
    ? counted.findIndex(
        (fact) => fact.marker.Put?.Item?.sk === AnalyticsLeadEntity.key(perLeadOf(organizationId, foldable.leadId)).sk,
      )
    : -1;
  if (foldable && foldRead && foldAt >= 0)
    counted[foldAt] = foldResponse(organizationId, foldable, counted[foldAt]!, memo, foldRead);
  const foldedIn = await countFacts(organizationId, counted);
  // Responses after the leads of the same batch are counted (a response needs its lead's per-lead item).
  for (const { effect } of effects) {
    if (!effect.response) continue;
    const folded = foldedIn.has(effect.response.leadId);
    if (!folded) await countResponse(organizationId, effect.response, memo);
    // An answered lead no longer counts against its assignee's open-leads cap (core/leads/open-leads.ts). A read of
    // the lead in this batch (made after the response was stored, as the batch holds it) that found it open for
    // nobody leaves nothing to close: no second read (issue 27, eighth pass).
    const known = memo.facts.get(effect.response.leadId);
    await leadAnswered(
      organizationId,
      effect.response.leadId,
      memo.facts.has(effect.response.leadId) && !known?.openFor ? { openFor: null } : undefined,
    );
  }
  // Assignments after the leads of the same batch are counted; routing assigns a lead just after its LeadCreated.
  for (const { effect } of effects) if (effect.assigned) await countAssignment(organizationId, effect.assigned);
  // Leads answered while they were still being processed: their response waited for the lead to be counted.
  // A lead whose response this batch counted had its early response read with its per-lead item, after that was written.
  const created = effects.flatMap(({ effect }) =>
    effect.leadCreated && !memo.earlyRead.has(effect.leadCreated.leadId) ? [effect.leadCreated.leadId] : [],
  );
  for (const early of await earlyResponses(organizationId, created)) await countResponse(organizationId, early, memo);
  const firstSourcedLead = effects.find(({ event, effect }) => effect.leadCreated && event.sourceId)?.event;
  const firstDelivery = effects.find(({ effect }) => effect.delivered)?.event;
  await Promise.all([
    firstSourcedLead && milestone(organizationId, "firstSourcedLeadAt", firstSourcedLead.createdAt),
    firstDelivery && milestone(organizationId, "firstDeliveredAt", firstDelivery.createdAt),
  ]);
}

/** What one event counts, with its marker; undefined when it changes no counter. */
async function factOf(
  memo: BatchMemo,
  organizationId: string,
  event: EventRecord,
  effect: EventEffect,
  groupedFrom: number,
): Promise<Fact | undefined> {
  const counters = { ...effect.counters };
  if (effect.completedCallId) {
    const seconds = await callSeconds(organizationId, effect.completedCallId);
    if (seconds > 0) counters.callSeconds = (counters.callSeconds ?? 0) + seconds;
  }
  const own: Addition[] = Object.values(counters).some((amount) => amount !== 0)
    ? [{ at: Date.parse(event.createdAt), counters }]
    : [];
  if (effect.leadCreated) {
    const facts = await factsOf(memo, organizationId, effect.leadCreated.leadId);
    const lead = facts && leadFactOf(organizationId, effect.leadCreated.leadId, facts);
    if (lead) return { marker: lead.marker, additions: [...lead.additions, ...own] };
  }
  if (own.length === 0) return undefined;
  const subject = subjectOf(event, groupedFrom);
  if (subject) return groupedFact(organizationId, subject, [{ eventId: event.id, additions: own }]);
  const marker = AnalyticsCountedEntity.putAt(
    { organizationId, eventId: event.id },
    { expiresAt: Math.floor(Date.now() / 1000) + markerTtlSeconds },
    { condition: where.new() },
  );
  return { marker: { Put: marker }, additions: own };
}

function leadFactOf(
  organizationId: string,
  leadId: string,
  facts: { sourceId: string | null; price: string | undefined; assignedUserId: string | null },
): Fact {
  const lead = {
    leadId,
    sourceId: facts.sourceId,
    priceUnits: toUnits(facts.price),
    assignedUserId: facts.assignedUserId,
  };
  return {
    marker: { Put: AnalyticsLeadEntity.create(leadRecord(organizationId, lead)) },
    additions: [{ at: decodeTime(leadId), counters: leadCounters(lead, lead.priceUnits) }],
  };
}

const perLeadOf = (organizationId: string, leadId: string) => ({ organizationId, leadId });

/** What folding a lead's first response into its count reads: the lead, its three histograms, its early response. */
interface FoldRead {
  facts: LeadCountingFacts | undefined;
  buckets: { organizationId: string; level: (typeof levels)[number][0]; bucket: string }[];
  histograms: (Item | undefined)[];
  early: Item | undefined;
}

/**
 * The fold's reads in one consistent BatchGetItem, before the batch's facts are read: the lead's facts join the
 * histograms and early response (the bucket keys come from the lead's id), and the batch's counting of the lead
 * uses them (`memo`) instead of its own read.
 */
async function readForFold(organizationId: string, leadId: string, memo: BatchMemo): Promise<FoldRead> {
  const createdAt = decodeTime(leadId);
  const buckets = levels.map(([level, bucketOf]) => ({ organizationId, level, bucket: bucketOf(createdAt) }));
  const histogramKeys = buckets.map((bucket) => AnalyticsHistogramEntity.key(bucket));
  const earlyKey = AnalyticsEarlyResponseEntity.key(perLeadOf(organizationId, leadId));
  const [facts, histograms, early] = await readTogether([
    leadCountingFactsRead(organizationId, leadId),
    { keys: histogramKeys, from: (items: (Item | undefined)[]) => items },
    oneItem(earlyKey, (item) => item),
  ]);
  memo.facts.set(leadId, facts);
  return { facts, buckets, histograms, early };
}

/**
 * The fact of a lead counted together with its first response, when the batch holds both (issue 27: one transaction
 * and one read round instead of the response's own read of the per-lead item, transaction and rollup rewrites). What
 * `countResponse` would add after the lead's count is added here: the lead is put on the row of its assignee as the
 * batch's read of the lead names it, its per-lead item is written answered,
 * and the three histograms are rewritten under their versions. The early response kept for a lead answered before it
 * was processed is read with the histograms, and the transaction checks it has not changed since (a response kept
 * meanwhile fails it): any failed condition but the marker's counts the plain fact instead, and the response then
 * goes the usual way.
 */
function foldResponse(
  organizationId: string,
  response: { leadId: string; at: number },
  plain: Fact,
  memo: BatchMemo,
  read: FoldRead,
): Fact {
  const perLead = perLeadOf(organizationId, response.leadId);
  // The batch's read of the lead serves even when it names no assignee (issue 27, h26): it was made after the response
  // was stored (the batch holds it), as a second read would be, so neither tells the assignee at the response better.
  const { facts, buckets, histograms: storedHistograms, early } = read;
  if (!facts) return plain;
  const createdAt = decodeTime(response.leadId);
  memo.earlyRead.add(response.leadId);
  const at = early ? Math.min(response.at, Date.parse(String(early.respondedAt))) : response.at;
  const seconds = responseSecondsOf(createdAt, at);
  const lead = leadFactOf(organizationId, response.leadId, facts);
  const counters = responseCounters({ sourceId: facts.sourceId, assignedUserId: facts.assignedUserId }, seconds);
  const histogramPart = Object.fromEntries(Object.entries(counters).filter(([name]) => isHistogram(name)));
  const numericPart = Object.fromEntries(Object.entries(counters).filter(([name]) => !isHistogram(name)));
  const histograms = buckets.map(({ level, bucket }, index) => {
    const stored = storedHistograms[index];
    const hist = mergeCounters(unpackHistogram(stored), histogramPart);
    return histogramUpdate(organizationId, level, bucket, { hist, readVersion: stored?.hv as number | undefined });
  });
  // A check, not a write: the early response as read (none, or the one read).
  const earlyUnchanged: TransactItem = {
    ConditionCheck: AnalyticsEarlyResponseEntity.check(
      perLead,
      early ? where.equals("respondedAt", early.respondedAt) : where.absent("respondedAt"),
    ),
  };
  return {
    marker: {
      Put: AnalyticsLeadEntity.create({
        ...leadRecord(organizationId, {
          leadId: response.leadId,
          sourceId: facts.sourceId,
          priceUnits: toUnits(facts.price),
          assignedUserId: facts.assignedUserId,
        }),
        respondedAt: new Date(at).toISOString(),
        responseSeconds: seconds,
      }),
    },
    additions: [
      ...lead.additions,
      ...plain.additions.slice(lead.additions.length),
      { at: createdAt, counters: numericPart },
      { at: createdAt, counters: histogramPart, fineOnly: true },
    ],
    folded: { leadId: response.leadId, writes: [...histograms, earlyUnchanged], plain },
  };
}

/** Rollup item (level and bucket) → the counters summed into it. */
type Sums = Map<string, { level: Level; bucket: string; counters: Counters }>;

/** Adds a fact's counters to `sums`; false (and `sums` untouched) when an item would pass the per-update limit. */
function addTo(sums: Sums, fact: Fact): boolean {
  const next: Sums = new Map([...sums].map(([key, sum]) => [key, { ...sum, counters: { ...sum.counters } }]));
  for (const { at, counters, fineOnly } of fact.additions) {
    for (const [level, bucketOf] of levelsOf(at)) {
      if (fineOnly && !isFine(level)) continue;
      const bucket = bucketOf(at);
      const sum = next.get(`${level}#${bucket}`) ?? { level, bucket, counters: {} };
      mergeCounters(sum.counters, counters);
      if (Object.keys(sum.counters).length > maxCountersPerUpdate) return false;
      next.set(`${level}#${bucket}`, sum);
    }
  }
  for (const [key, sum] of next) sums.set(key, sum);
  return true;
}

/** The transaction part of the `index`th fact's marker in one batch. */
const markerPart = (index: number) => `marker:${index}`;

/**
 * Writes the facts not counted yet: as few transactions as the item limits allow, each its markers plus the summed
 * rollups. Answers the leads whose first response was counted with them (`foldResponse`).
 */
async function countFacts(organizationId: string, facts: Fact[]): Promise<Set<string>> {
  const foldedIn = new Set<string>();
  let pending = facts;
  while (pending.length > 0) {
    const sums: Sums = new Map();
    const chunk: Fact[] = [];
    for (const fact of pending) {
      const before = new Map(sums);
      // A folded response's histograms and check take their own places in the transaction.
      const foldedWrites = [...chunk, fact].reduce((sum, other) => sum + (other.folded?.writes.length ?? 0), 0);
      if (!addTo(sums, fact) || chunk.length + 1 + sums.size + foldedWrites > maxTransactionItems) {
        if (chunk.length === 0) throw new Error("One analytics fact exceeds a transaction.");
        sums.clear();
        for (const [key, sum] of before) sums.set(key, sum);
        break;
      }
      chunk.push(fact);
    }
    const updates = [...sums.values()].map(({ level, bucket, counters }) =>
      rollupUpdate(organizationId, level, bucket, counters),
    );
    try {
      const transaction = new Transaction();
      for (const [index, fact] of chunk.entries()) {
        transaction.include(markerPart(index), fact.marker);
        if (fact.folded) transaction.include(foldedPart(index), ...fact.folded.writes);
      }
      await transact(transaction.include("rollups", ...updates));
      for (const fact of chunk) if (fact.folded) foldedIn.add(fact.folded.leadId);
      pending = pending.slice(chunk.length);
    } catch (error) {
      if (!(error instanceof TransactionConditionFailed)) throw error;
      const counted = new Set(chunk.filter((_, index) => error.failed(markerPart(index))));
      // A histogram rewritten or an early response kept since the read: the lead is counted without its response.
      const unfold = new Map(
        chunk.flatMap((fact, index) =>
          fact.folded && !counted.has(fact) && error.failed(foldedPart(index)) ? [[fact, fact.folded.plain]] : [],
        ),
      );
      if (counted.size === 0 && unfold.size === 0) throw error;
      // A shared marker that failed: some of its events were counted, the others are counted again without them.
      const parts = await uncountedParts(organizationId, [...counted]);
      pending = pending.flatMap((fact) => {
        if (!counted.has(fact)) return [unfold.get(fact) ?? fact];
        const part = parts.get(fact);
        return part ? [part] : [];
      });
    }
  }
  return foldedIn;
}

/** The transaction part of the `index`th fact's folded response (histograms, early-response check). */
const foldedPart = (index: number) => `folded:${index}`;

/**
 * The first response of a counted lead; later ones add nothing. The histograms
 * of the lead's hour, day and week are rewritten from what was read; a
 * concurrent rewrite fails the version check and the whole transaction is
 * retried from a fresh read. Stream shards are read in parallel, so a response
 * can arrive before its LeadCreated event: a processed lead not counted yet is
 * counted first (its per-lead item makes the later LeadCreated add nothing). A
 * lead can even be answered before it is processed (a message sent to a Pending
 * lead): the response is then kept as the lead's early response, which the
 * LeadCreated counting picks up, and the earliest of it and any later response
 * is the lead's first.
 */
async function countResponse(
  organizationId: string,
  response: { leadId: string; at: number },
  memo: BatchMemo,
): Promise<void> {
  const perLead = { organizationId, leadId: response.leadId };
  const key = AnalyticsLeadEntity.key(perLead);
  let leadCounted = false;
  let keptEarly = false;
  for (let attempt = 1; ; attempt++) {
    const stored = await getItems([key, AnalyticsEarlyResponseEntity.key(perLead)], { consistent: true });
    const Item = stored.find((item) => item.sk === key.sk);
    const early = stored.find((item) => item.sk !== key.sk);
    if (Item) memo.earlyRead.add(response.leadId);
    if (!Item && !leadCounted) {
      const facts = await leadCountingFacts(organizationId, response.leadId);
      memo.facts.set(response.leadId, facts);
      if (!facts) return;
      if (facts.processingStatus !== "Processed") {
        if (keptEarly) return;
        await keepEarlyResponse(organizationId, response);
        // Read again: the lead may have been processed and counted meanwhile, before its counting could see this response.
        keptEarly = true;
        continue;
      }
      await countFacts(organizationId, [leadFactOf(organizationId, response.leadId, facts)]);
      leadCounted = true;
      continue;
    }
    if (!Item || Item.respondedAt) return;
    const createdAt = decodeTime(response.leadId);
    const at = early ? Math.min(response.at, Date.parse(String(early.respondedAt))) : response.at;
    const seconds = responseSecondsOf(createdAt, at);
    // Routing can assign a lead after it was counted (it follows the Processed write; a claim comes later still):
    // a lead counted unassigned is put on the row of the agent who holds it when it is first answered.
    const countedAgent = (Item.assignedUserId as string | null | undefined) ?? null;
    // The batch's read of the lead serves when it already names an assignee; else (routing may have assigned the lead
    // since that read) and on a retry (it failed because the lead changed) the lead is read again.
    const known = attempt === 1 ? memo.facts.get(response.leadId) : undefined;
    const facts = countedAgent
      ? undefined
      : known?.assignedUserId
        ? known
        : await leadCountingFacts(organizationId, response.leadId);
    // The freshest read of the lead this batch made (after the response was stored): `leadAnswered` uses it.
    if (facts && facts !== known) memo.facts.set(response.leadId, facts);
    const agent = countedAgent ?? facts?.assignedUserId ?? null;
    const counters = responseCounters({ sourceId: Item.sourceId as string | null, assignedUserId: agent }, seconds);
    if (agent && !countedAgent) counters[counter.agentLeads(agent)] = 1;
    const histogramPart = Object.fromEntries(Object.entries(counters).filter(([name]) => isHistogram(name)));
    // The three histograms in one read.
    const buckets = levels.map(([level, bucketOf]) => ({ organizationId, level, bucket: bucketOf(createdAt) }));
    const storedHistograms = await getItemsAt(
      buckets.map((bucket) => AnalyticsHistogramEntity.key(bucket)),
      { consistent: true },
    );
    const histograms = buckets.map(({ level, bucket }, index) => {
      const stored = storedHistograms[index];
      const hist = mergeCounters(unpackHistogram(stored), histogramPart);
      return histogramUpdate(organizationId, level, bucket, { hist, readVersion: stored?.hv as number | undefined });
    });
    const updates = [...rollupUpdates(organizationId, createdAt, counters), ...histograms];
    try {
      await transact(
        new Transaction()
          .update(
            "lead",
            AnalyticsLeadEntity.update(
              perLead,
              { respondedAt: new Date(at).toISOString(), responseSeconds: seconds, assignedUserId: agent },
              // An assignment counted since the read put the lead on a row: read again rather than count it twice.
              { condition: unanswered(countedAgent) },
            ),
          )
          .include("rollups", ...updates),
      );
      return;
    } catch (error) {
      if (!(error instanceof TransactionConditionFailed)) throw error;
      // The lead changed since the read (answered: the next read returns; assigned: counted with its agent).
      if (attempt >= 10) return;
    }
  }
}

/**
 * A lead's first assignment puts it on its agent's leaderboard row (in the bucket of its creation time), once: the
 * per-lead item's `assignedUserId` is the marker. Routing assigns just after the Processed write, so the lead is
 * usually counted unassigned first; a lead counted after its assignment already carries its agent. A lead answered
 * before this event is counted was attributed by its response (to whoever held it then), so it is left as it is.
 */
async function countAssignment(organizationId: string, assigned: { leadId: string; userId: string }): Promise<void> {
  const perLead = { organizationId, leadId: assigned.leadId };
  let Item = await AnalyticsLeadEntity.get(perLead, { consistent: true });
  if (!Item) {
    const facts = await leadCountingFacts(organizationId, assigned.leadId);
    if (!facts || facts.processingStatus !== "Processed") return;
    await countFacts(organizationId, [leadFactOf(organizationId, assigned.leadId, facts)]);
    Item = await AnalyticsLeadEntity.get(perLead, { consistent: true });
  }
  if (!Item || Item.assignedUserId || Item.respondedAt) return;
  const counters = { [counter.agentLeads(assigned.userId)]: 1 };
  try {
    await transact(
      new Transaction()
        .update(
          "lead",
          AnalyticsLeadEntity.update(perLead, { assignedUserId: assigned.userId }, { condition: unanswered(null) }),
        )
        .include("rollups", ...rollupUpdates(organizationId, decodeTime(assigned.leadId), counters)),
    );
  } catch (error) {
    // Assigned or answered meanwhile: that write put the lead on its row.
    if (!(error instanceof TransactionConditionFailed) || !error.failed("lead")) throw error;
  }
}

/**
 * The per-lead item's condition for a first response or assignment: counted, not answered, and on the row it was
 * read on (`agent`: its assignee as read, null for none).
 */
const unanswered = (agent: string | null) =>
  where.all(
    where.stored(),
    where.absent("respondedAt"),
    where.any(where.absent("assignedUserId"), where.equals("assignedUserId", agent)),
  );

/** Keeps the earliest response to a lead not processed yet (a later one leaves it as it is). */
async function keepEarlyResponse(organizationId: string, response: { leadId: string; at: number }): Promise<void> {
  const respondedAt = new Date(response.at).toISOString();
  await conditionally(
    table.update(
      AnalyticsEarlyResponseEntity.update(
        { organizationId, leadId: response.leadId },
        {
          entity: AnalyticsEarlyResponseEntity.name,
          respondedAt,
          expiresAt: Math.floor(Date.now() / 1000) + markerTtlSeconds,
        },
        { condition: where.any(where.absent("respondedAt"), where.after("respondedAt", respondedAt)) },
      ),
    ),
  );
}

/** The early responses kept for these just-counted leads, read after their per-lead items were written (so none is missed). */
async function earlyResponses(organizationId: string, leadIds: string[]): Promise<{ leadId: string; at: number }[]> {
  if (leadIds.length === 0) return [];
  const found = await getItems(
    leadIds.map((leadId) => AnalyticsEarlyResponseEntity.key({ organizationId, leadId })),
    { consistent: true },
  );
  // The item does not store its lead: its key ends with the lead's id.
  const prefix = AnalyticsEarlyResponseEntity.key({ organizationId, leadId: "" }).sk;
  return found.map((item) => ({
    leadId: String(item.sk).slice(prefix.length),
    at: Date.parse(String(item.respondedAt)),
  }));
}

/** Milestones this warm instance has written: first-time values never change, so each is written once per instance. */
const writtenMilestones = new Set<string>();

async function milestone(
  organizationId: string,
  name: "firstDeliveredAt" | "firstSourcedLeadAt",
  at: string,
): Promise<void> {
  if (writtenMilestones.has(`${organizationId}#${name}`)) return;
  await table.update(
    AnalyticsMilestonesEntity.update(
      { organizationId },
      { entity: AnalyticsMilestonesEntity.name, [name]: computed.ifAbsent(at) },
    ),
  );
  writtenMilestones.add(`${organizationId}#${name}`);
}
