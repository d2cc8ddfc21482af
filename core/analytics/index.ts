import { stringify } from "csv-stringify/sync";
import type { Actor } from "#core/auth/actor";
import { AnalyticsQuerySchema, resolveRange, type AnalyticsQuery } from "#core/analytics/range";
import { AnalyticsReportSchema, buildReport, exportRows, type AnalyticsReport } from "#core/analytics/report";
import { countRecordedEvents } from "#core/analytics/aggregator";

export { AnalyticsQuerySchema, AnalyticsReportSchema, type AnalyticsQuery, type AnalyticsReport };

/** CSV columns of the export, in order (docs/analytics.md describes each). */
export const exportColumns = [
  "startAt",
  "endAt",
  "label",
  "leads",
  "respondedLeads",
  "averageResponseMinutes",
  "medianResponseMinutes",
  "respondedWithinFiveMinutesPercent",
  "smsSent",
  "smsReceived",
  "failedOrBlockedSms",
  "callsPlaced",
  "callsReceived",
  "answeredCalls",
  "missedCalls",
  "callSeconds",
  "callMinutes",
  "usageSpend",
  "agentUserId",
  "agentName",
  "missedLeads",
] as const;

export interface AnalyticsExport {
  fileName: string;
  csv: string;
}

/** `GET /analytics/my`: every figure of spec 2.3 for the requested window. */
export async function analyticsReport(
  actor: Actor,
  query: AnalyticsQuery,
  now: number = Date.now(),
): Promise<AnalyticsReport> {
  return buildReport(actor, resolveRange(query, now), now);
}

/**
 * The same report over the last `days` days ending now (the A2A "summarize performance" skill). A function of its
 * own (as `analyticsReport`; `Analytics` names both) so the skill's bundle leaves the CSV export out.
 */
export async function analyticsSummary(actor: Actor, input: { days: number }): Promise<AnalyticsReport> {
  return analyticsReport(actor, { days: input.days });
}

/** Customer analytics of the caller's organization (endpoints 3 and 4, the A2A summary). */

export { analyticsReport as report };

export { analyticsSummary as summary };

/**
 * `GET /analytics/my/export`: one RFC 4180 row per trend bucket (same buckets,
 * cohort and definitions as the report), then one per agent of the leaderboard,
 * header first, CRLF line ends.
 */
export async function exportCsv(
  actor: Actor,
  query: AnalyticsQuery,
  now: number = Date.now(),
): Promise<AnalyticsExport> {
  const range = resolveRange(query, now);
  const { buckets, agents } = await exportRows(actor.organizationId, range, now);
  // After the buckets, one row per agent over the whole window (the leaderboard); its agent columns say so.
  const agentRows = agents.map((agent) => ({
    startAt: new Date(range.start).toISOString(),
    endAt: new Date(range.end).toISOString(),
    label: `Agent: ${agent.name ?? agent.userId}`,
    ...agent,
    agentUserId: agent.userId,
    agentName: agent.name,
  }));
  const rows: Partial<Record<(typeof exportColumns)[number], unknown>>[] = [...buckets, ...agentRows];
  const csv = stringify(
    rows.map((row) => exportColumns.map((column) => row[column] ?? "")),
    { header: true, columns: [...exportColumns], record_delimiter: "windows" },
  );
  const day = (t: number) => new Date(t).toISOString().slice(0, 10);
  return { fileName: `analytics-${day(range.start)}-to-${day(range.end)}.csv`, csv };
}

/** Counts recorded events into the rollups, each once (the stream aggregator; a replay adds nothing). */
export { countRecordedEvents };
