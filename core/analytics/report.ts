import { type AnalyticsReport } from "#core/analytics/report-schema";
import * as UnreadConversations from "#core/messaging/unread";
import { phoneNumberSummary } from "#core/messaging/phone-number-count";
import { sourceNames } from "#core/sources/names";
import { automationSummaries, type AutomationSummary } from "#core/automations/summaries";
import { table } from "#core/db/items";
import type { Actor } from "#core/auth/actor";
import * as WebhookEndpoints from "#core/webhooks/endpoints";
import * as Billing from "#core/billing/index";
import { type Wallet } from "#core/billing/index";
import { keys } from "#core/db/keys";
import * as Money from "#core/shared/money";
import { counter, fromUnits, missedThresholdMinutes, noSource, type Counters } from "#core/analytics/counters";
import { granularityOf, previousRange, type Bucket, type TimeRange } from "#core/analytics/range";
import {
  leadCreatedAt,
  leadFacts,
  medianOf,
  rangeFigures,
  type LeadFact,
  type RangeFigures,
} from "#core/analytics/read";
import { userNames } from "#core/users/names";
import type { Histogram } from "#core/analytics/rollups";
import { fineRollupsFrom } from "#core/analytics/minutes";

const minuteMs = 60_000;
const round = (value: number, places: number) => Math.round(value * 10 ** places) / 10 ** places;
const percent = (part: number, whole: number) => (whole === 0 ? null : round((part / whole) * 100, 1));
const minutesOf = (seconds: number) => round(seconds / 60, 2);
const get = (counters: Counters, name: string) => counters[name] ?? 0;
const iso = (t: number) => new Date(t).toISOString();

/** `current` against `previous`: changePercent is null when there was nothing before. */
export function compare(current: number, previous: number) {
  return {
    current,
    previous,
    changePercent: previous === 0 ? null : round(((current - previous) / previous) * 100, 1),
    direction: current > previous ? ("up" as const) : current < previous ? ("down" as const) : ("flat" as const),
  };
}

/** Average response minutes of a set of counters; null when no lead was answered. */
function averageMinutes(counters: Counters): number | null {
  const responded = get(counters, counter.responded);
  return responded === 0 ? null : round(get(counters, counter.responseSeconds) / responded / 60, 2);
}

/**
 * Per-bucket figures shared by the JSON trends and the CSV rows. The median needs the bucket's histogram, given only
 * where it is shown (the CSV and the totals).
 */
export function bucketRow(bucket: Bucket, counters: Counters, histogram?: Histogram) {
  const leads = get(counters, counter.leads);
  return {
    startAt: iso(bucket.start),
    endAt: iso(bucket.end),
    label: bucket.label,
    leads,
    respondedLeads: get(counters, counter.responded),
    averageResponseMinutes: averageMinutes(counters),
    medianResponseMinutes: histogram ? medianOf(histogram.h) : null,
    respondedWithinFiveMinutesPercent: percent(get(counters, counter.withinFiveMinutes), leads),
    smsSent: get(counters, counter.smsSent),
    smsReceived: get(counters, counter.smsReceived),
    failedOrBlockedSms: get(counters, counter.smsFailedOrBlocked),
    callsPlaced: get(counters, counter.callsPlaced),
    callsReceived: get(counters, counter.callsReceived),
    answeredCalls: get(counters, counter.callsAnswered),
    missedCalls: get(counters, counter.callsMissed),
    callSeconds: get(counters, counter.callSeconds),
    callMinutes: minutesOf(get(counters, counter.callSeconds)),
    usageSpend: fromUnits(get(counters, counter.spend)),
  };
}

/** The automation fields analytics shows (read with a projection, not the full definitions). */

async function milestones(organizationId: string): Promise<{
  firstDeliveredAt?: string;
  firstSourcedLeadAt?: string;
  minuteRollupsFrom?: number;
  secondRollupsFrom?: number;
}> {
  const { Item } = await table.get({ Key: keys.analyticsMilestones(organizationId) });
  return (Item ?? {}) as {
    firstDeliveredAt?: string;
    firstSourcedLeadAt?: string;
    minuteRollupsFrom?: number;
    secondRollupsFrom?: number;
  };
}

/** The leads whose missed status may still change (younger than the threshold), read from their per-lead items. */
const recentWindow = (now: number) => ({ start: now - 24 * 60 * minuteMs, end: now });

/** Everything the report reads, in parallel. */
async function gather(actor: Actor, range: TimeRange, now: number) {
  const organizationId = actor.organizationId;
  const granularity = granularityOf(range);
  const recent = recentWindow(now);
  // The milestones item also says where minute and second rollups start: both ranges' edges wait for it, nothing else does.
  const reachedItem = milestones(organizationId);
  const fineFrom = reachedItem.then((item) => fineRollupsFrom(item, now));
  const [current, previous, recentLeads, wallet, automations, sources, numbers, unread, reached, webhookEndpoints] =
    await Promise.all([
      rangeFigures(organizationId, range, granularity, { fineFrom }),
      rangeFigures(organizationId, previousRange(range), granularity, { leadsOnly: true, fineFrom }),
      leadFacts(organizationId, recent),
      Billing.wallet(organizationId),
      automationSummaries(organizationId),
      sourceNames(organizationId),
      phoneNumberSummary(organizationId),
      UnreadConversations.waiting(organizationId),
      reachedItem,
      WebhookEndpoints.all(organizationId),
    ]);
  return {
    granularity,
    current,
    previous,
    recentLeads,
    wallet,
    automations,
    sources,
    numbers,
    unread,
    reached,
    webhookEndpoints,
  };
}

type Gathered = Awaited<ReturnType<typeof gather>>;

/**
 * Missed leads: leads of the range with no response within the threshold, among
 * those whose threshold has passed (younger leads are still "waiting").
 */
function missedLeads(totals: Counters, recent: LeadFact[], range: TimeRange, now: number, agent?: string): number {
  const matureBefore = now - missedThresholdMinutes * minuteMs;
  const young = recent.filter((fact) => {
    const created = leadCreatedAt(fact.leadId);
    const inWindow = created >= Math.max(range.start, matureBefore) && created < range.end;
    return inWindow && (agent === undefined || fact.assignedUserId === agent);
  });
  const youngAnswered = young.filter(
    (fact) => fact.respondedAt && (fact.responseSeconds ?? 0) <= missedThresholdMinutes * 60,
  ).length;
  const [leads, withinThreshold] =
    agent === undefined
      ? [counter.leads, counter.withinThreshold]
      : [counter.agentLeads(agent), counter.agentWithinThreshold(agent)];
  return get(totals, leads) - get(totals, withinThreshold) - (young.length - youngAnswered);
}

/** The leaderboard rows: one per agent with leads in the window, fastest median first (none answered: last). */
function agentRows(
  figures: { totals: Counters; histogram: Histogram },
  recent: LeadFact[],
  names: Map<string, string>,
  range: TimeRange,
  now: number,
) {
  const { totals, histogram } = figures;
  return Object.entries(totals)
    .filter(([name, count]) => name.startsWith("ag#") && count > 0)
    .map(([name, leads]) => {
      const userId = name.slice("ag#".length);
      const responded = get(totals, counter.agentResponded(userId));
      return {
        userId,
        name: names.get(userId) ?? null,
        leads,
        respondedLeads: responded,
        averageResponseMinutes:
          responded === 0 ? null : round(get(totals, counter.agentResponseSeconds(userId)) / responded / 60, 2),
        medianResponseMinutes: medianOf(histogram.a[userId]),
        respondedWithinFiveMinutesPercent: percent(get(totals, counter.agentWithinFiveMinutes(userId)), leads),
        missedLeads: missedLeads(totals, recent, range, now, userId),
      };
    })
    .sort(
      (a, b) =>
        (a.medianResponseMinutes ?? Infinity) - (b.medianResponseMinutes ?? Infinity) ||
        b.leads - a.leads ||
        (a.name ?? a.userId).localeCompare(b.name ?? b.userId),
    );
}

/** The leaderboard of a window: its rows with the agents' names (one batch read of just those users). */
async function leaderboard(
  organizationId: string,
  figures: { totals: Counters; histogram: Histogram },
  recent: LeadFact[],
  range: TimeRange,
  now: number,
) {
  const agentIds = Object.keys(figures.totals).flatMap((name) => (name.startsWith("ag#") ? [name.slice(3)] : []));
  const names = await userNames(organizationId, agentIds);
  return agentRows(figures, recent, names, range, now);
}

function leadSources(totals: Counters, histogram: Histogram, sources: { id: string; name: string }[]) {
  const names = new Map(sources.map((source) => [source.id, source.name]));
  const total = get(totals, counter.leads);
  return Object.entries(totals)
    .filter(([name, count]) => name.startsWith("src#") && count > 0)
    .map(([name, leads]) => {
      const sourceKey = name.slice("src#".length);
      const responded = get(totals, counter.sourceResponded(sourceKey));
      const spend = fromUnits(get(totals, counter.sourcePrice(sourceKey)));
      return {
        source: sourceKey === noSource ? "Direct" : (names.get(sourceKey) ?? sourceKey),
        sourceId: sourceKey === noSource ? null : sourceKey,
        leads,
        percent: percent(leads, total) ?? 0,
        performance: {
          respondedLeads: responded,
          medianResponseMinutes: medianOf(histogram.s[sourceKey]),
          leadSpend: spend,
          spendPerRespondedLead: responded === 0 ? null : Money.divide(spend, responded, 4),
        },
      };
    })
    .sort((a, b) => b.leads - a.leads || a.source.localeCompare(b.source));
}

function automationHealth(automations: AutomationSummary[], totals: Counters) {
  const failing = automations
    .filter((automation) => automation.lastRunStatus === "Failed")
    .map((automation) => ({
      automationId: automation.id,
      name: automation.name,
      failedAt: automation.lastRunAt,
      error: automation.lastRunError ?? "The last run failed.",
    }))
    .sort((a, b) => (b.failedAt ?? "").localeCompare(a.failedAt ?? ""));
  return {
    automationCount: automations.length,
    enabledCount: automations.filter((automation) => automation.enabled).length,
    executions: get(totals, counter.automationRuns),
    successCount: get(totals, counter.automationSucceeded),
    failureCount: get(totals, counter.automationFailed),
    lastFailure: failing[0] ?? null,
    failingAutomations: failing,
  };
}

function walletFunded(wallet: Wallet): boolean {
  return wallet.status === "Active" || wallet.status === "Low";
}

/** Prepaid billing: Suspended by the operator, PaymentRequired when nothing is left to spend, else Good. */
function billingStatus(wallet: Wallet): string {
  if (wallet.status === "Suspended") return "Suspended";
  if (wallet.status === "Empty") return "PaymentRequired";
  return "Good";
}

function activationHealth(data: Gathered) {
  const item = (key: string, label: string, done: boolean, detail: string, actionHref: string) => ({
    key,
    label,
    status: done ? ("Complete" as const) : ("Incomplete" as const),
    detail,
    actionHref,
  });
  const enabled = data.automations.filter((automation) => automation.enabled).length;
  const items = [
    item(
      "leadSource",
      "A lead source exists and received a lead",
      data.sources.length > 0 && Boolean(data.reached.firstSourcedLeadAt),
      data.sources.length === 0
        ? "No lead source yet: create one and give its key to your lead seller."
        : data.reached.firstSourcedLeadAt
          ? `First lead from a source received at ${data.reached.firstSourcedLeadAt}.`
          : `${data.sources.length} source(s), but no lead has arrived through one yet.`,
      "/sources",
    ),
    item(
      "phoneNumber",
      "A phone number exists",
      data.numbers.count > 0,
      data.numbers.count > 0
        ? `${data.numbers.count} phone number(s).`
        : "No phone number: add one to text and call leads.",
      "/phone-numbers",
    ),
    item(
      "wallet",
      "The wallet is funded",
      walletFunded(data.wallet),
      `Available balance ${data.wallet.availableBalance} ${data.wallet.currency} (${data.wallet.status}).`,
      "/billing/wallet/top-ups",
    ),
    item(
      "automation",
      "An automation is enabled",
      enabled > 0,
      enabled > 0 ? `${enabled} enabled automation(s).` : "No enabled automation: leads wait for a person to answer.",
      "/automations",
    ),
    item(
      "messageDelivered",
      "A message was delivered",
      Boolean(data.reached.firstDeliveredAt),
      data.reached.firstDeliveredAt
        ? `First delivery at ${data.reached.firstDeliveredAt}.`
        : "No message has been delivered yet.",
      "/messages",
    ),
  ];
  // Only organizations that subscribed to webhooks get this item: a disabled endpoint means missed events.
  if (data.webhookEndpoints.length > 0) {
    const disabled = data.webhookEndpoints.filter(
      (endpoint) => !endpoint.enabled && endpoint.health.disabledReason !== "Manual",
    );
    items.push(
      item(
        "webhooks",
        "Webhook endpoints receive events",
        disabled.length === 0,
        disabled.length === 0
          ? `${data.webhookEndpoints.length} webhook endpoint(s), none disabled by failures.`
          : `${disabled.length} webhook endpoint(s) disabled after failing deliveries.`,
        disabled.length === 0 ? "/webhook-endpoints/all/my" : `/webhook-endpoints/${disabled[0]!.id}`,
      ),
    );
  }
  return {
    overallStatus: items.every((entry) => entry.status === "Complete")
      ? ("Complete" as const)
      : ("Incomplete" as const),
    items,
  };
}

/** Leads created in the last 24 hours, more than 5 minutes ago, still without a response. */
export const waitingAfterMinutes = 5;

function needsAttention(data: Gathered, now: number): AnalyticsReport["needsAttention"] {
  const items: AnalyticsReport["needsAttention"] = [];
  const failing = data.automations.filter((automation) => automation.lastRunStatus === "Failed");
  if (failing.length > 0) {
    items.push({
      severity: "Warning",
      title: `${failing.length} automation(s) failing`,
      detail: `The last run failed: ${failing
        .slice(0, 3)
        .map((automation) => automation.name)
        .join(", ")}${failing.length > 3 ? ", …" : ""}.`,
      actionHref: `/automations/${failing[0]!.id}`,
      actionText: "Review automation",
    });
  }
  if (data.wallet.status !== "Active") {
    items.push({
      severity: data.wallet.status === "Low" ? "Warning" : "Critical",
      title:
        data.wallet.status === "Suspended"
          ? "Wallet suspended"
          : data.wallet.status === "Empty"
            ? "Wallet empty"
            : "Wallet balance low",
      detail: `Available balance ${data.wallet.availableBalance} ${data.wallet.currency}; messages and calls stop when it is used up.`,
      actionHref: "/billing/wallet/top-ups",
      actionText: "Top up",
    });
  }
  const hourAgo = iso(now - 60 * minuteMs);
  const stale = data.unread.filter((entry) => entry.oldestUnreadAt && entry.oldestUnreadAt < hourAgo);
  if (stale.length > 0) {
    const messages = stale.reduce((sum, entry) => sum + entry.unreadCount, 0);
    items.push({
      severity: "Warning",
      title: `${messages} unread message(s) older than an hour`,
      detail: `${stale.length} conversation(s) have inbound messages nobody has read for over an hour.`,
      actionHref: "/conversations/all/my",
      actionText: "Open conversations",
    });
  }
  for (const number of data.numbers.paused) {
    items.push({
      severity: "Critical",
      title: `Number ${number.phoneNumber} paused`,
      detail: `${number.reason} Its messages go out from the organization's other numbers meanwhile.`,
      actionHref: `/phone-numbers/${number.id}/health`,
      actionText: "Review and resume",
    });
  }
  const disabledEndpoints = data.webhookEndpoints.filter(
    (endpoint) => !endpoint.enabled && endpoint.health.disabledReason !== "Manual",
  );
  if (disabledEndpoints.length > 0) {
    const first = disabledEndpoints[0]!;
    items.push({
      severity: "Critical",
      title: `${disabledEndpoints.length} webhook endpoint(s) disabled`,
      detail: `${first.url} (${first.id}) was disabled (${first.health.disabledReason}) at ${first.health.disabledAt}: events are not delivered to it. Fix the receiver, re-enable it with PUT and replay what it missed.`,
      actionHref: `/webhook-endpoints/${first.id}`,
      actionText: "Re-enable endpoint",
    });
  }
  const waiting = data.recentLeads.filter(
    (fact) => !fact.respondedAt && leadCreatedAt(fact.leadId) <= now - waitingAfterMinutes * minuteMs,
  );
  if (waiting.length > 0) {
    items.push({
      severity: waiting.length >= 10 ? "Critical" : "Warning",
      title: `${waiting.length} lead(s) waiting for a response`,
      detail: `Leads received in the last 24 hours with no message or answered call for over ${waitingAfterMinutes} minutes.`,
      actionHref: "/leads/all/my",
      actionText: "Answer leads",
    });
  }
  return items;
}

/** Builds the spec 2.3 report of the actor's organization over `range`. */
export async function buildReport(actor: Actor, range: TimeRange, now: number = Date.now()): Promise<AnalyticsReport> {
  const data = await gather(actor, range, now);
  const totals = data.current.totals;
  const rows = data.current.buckets.map(({ bucket, counters }) => bucketRow(bucket, counters));
  const all = bucketRow({ start: range.start, end: range.end, label: "" }, totals, data.current.histogram);
  const leadsComparison = compare(all.leads, get(data.previous.totals, counter.leads));
  const unreadMessages = data.unread.reduce((sum, entry) => sum + entry.unreadCount, 0);
  const agents = await leaderboard(actor.organizationId, data.current, data.recentLeads, range, now);
  return {
    range: { startAt: iso(range.start), endAt: iso(range.end) },
    summary: {
      leads: all.leads,
      leadsComparison,
      averageResponseMinutes: all.averageResponseMinutes,
      medianResponseMinutes: all.medianResponseMinutes,
      respondedWithinFiveMinutesPercent: all.respondedWithinFiveMinutesPercent,
      missedLeads: missedLeads(totals, data.recentLeads, range, now),
      unreadMessages,
      missedCalls: all.missedCalls,
      smsSent: all.smsSent,
      smsReceived: all.smsReceived,
      callsPlaced: all.callsPlaced,
      callsReceived: all.callsReceived,
      callMinutes: all.callMinutes,
      usageSpend: all.usageSpend,
      walletBalance: data.wallet.balance,
      billingStatus: billingStatus(data.wallet),
      walletStatus: data.wallet.status,
    },
    leadTrend: {
      total: all.leads,
      granularity: data.granularity,
      comparison: leadsComparison,
      points: rows.map((row) => ({ startAt: row.startAt, endAt: row.endAt, label: row.label, value: row.leads })),
    },
    responseMetrics: {
      averageMinutes: all.averageResponseMinutes,
      medianMinutes: all.medianResponseMinutes,
      respondedWithinFiveMinutesPercent: all.respondedWithinFiveMinutesPercent,
      respondedLeads: all.respondedLeads,
      unrespondedLeads: all.leads - all.respondedLeads,
      unreadMessages,
      missedCalls: all.missedCalls,
      averageMinutesTrend: rows.map((row) => ({
        startAt: row.startAt,
        endAt: row.endAt,
        label: row.label,
        value: row.averageResponseMinutes,
      })),
    },
    communicationUsage: {
      smsSent: all.smsSent,
      smsReceived: all.smsReceived,
      failedOrBlockedSms: all.failedOrBlockedSms,
      callsPlaced: all.callsPlaced,
      callsReceived: all.callsReceived,
      answeredCalls: all.answeredCalls,
      missedCalls: all.missedCalls,
      callMinutes: all.callMinutes,
      callSeconds: all.callSeconds,
      usageSpend: all.usageSpend,
      trend: rows.map((row) => ({
        startAt: row.startAt,
        endAt: row.endAt,
        label: row.label,
        smsSent: row.smsSent,
        smsReceived: row.smsReceived,
        calls: row.callsPlaced + row.callsReceived,
        callMinutes: row.callMinutes,
        spend: row.usageSpend,
      })),
    },
    leadSources: leadSources(totals, data.current.histogram, data.sources),
    agents,
    automationHealth: automationHealth(data.automations, totals),
    activationHealth: activationHealth(data),
    needsAttention: needsAttention(data, now),
    generatedAt: iso(now),
  };
}

/** The CSV export's rows: the figures of each trend bucket, and the window's leaderboard. */
export async function exportRows(organizationId: string, range: TimeRange, now: number) {
  const [figures, recent]: [RangeFigures, LeadFact[]] = await Promise.all([
    rangeFigures(organizationId, range, granularityOf(range), { bucketHistograms: true }),
    leadFacts(organizationId, recentWindow(now)),
  ]);
  return {
    buckets: figures.buckets.map(({ bucket, counters, histogram }) => bucketRow(bucket, counters, histogram)),
    agents: await leaderboard(organizationId, figures, recent, range, now),
  };
}
export { AnalyticsReportSchema, type AnalyticsReport } from "#core/analytics/report-schema";
