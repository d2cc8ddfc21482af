/** The shape of the analytics report (GET /analytics/my), feeding validation of the answer and the contract. */
import * as v from "valibot";
import { timestamp } from "#core/shared/ids";

/** The customer analytics answer (spec 2.3); see docs/analytics.md for every definition. */
export const num = v.number();
export const nullableNum = v.nullable(v.number());
export const time = timestamp;
export const comparison = v.object({
  current: num,
  previous: num,
  changePercent: nullableNum,
  direction: v.picklist(["up", "down", "flat"]),
});
export const point = { startAt: time, endAt: time, label: v.string() };
export const failure = v.object({
  automationId: v.string(),
  name: v.string(),
  failedAt: v.nullable(time),
  error: v.nullable(v.string()),
});

export const AnalyticsReportSchema = v.object({
  range: v.object({ startAt: time, endAt: time }),
  summary: v.object({
    leads: num,
    leadsComparison: comparison,
    averageResponseMinutes: nullableNum,
    medianResponseMinutes: nullableNum,
    respondedWithinFiveMinutesPercent: nullableNum,
    missedLeads: num,
    unreadMessages: num,
    missedCalls: num,
    smsSent: num,
    smsReceived: num,
    callsPlaced: num,
    callsReceived: num,
    callMinutes: num,
    usageSpend: v.string(),
    walletBalance: v.string(),
    billingStatus: v.string(),
    walletStatus: v.string(),
  }),
  leadTrend: v.object({
    total: num,
    granularity: v.picklist(["Hour", "Day", "Week"]),
    comparison,
    points: v.array(v.object({ ...point, value: num })),
  }),
  responseMetrics: v.object({
    averageMinutes: nullableNum,
    medianMinutes: nullableNum,
    respondedWithinFiveMinutesPercent: nullableNum,
    respondedLeads: num,
    unrespondedLeads: num,
    unreadMessages: num,
    missedCalls: num,
    averageMinutesTrend: v.array(v.object({ ...point, value: nullableNum })),
  }),
  communicationUsage: v.object({
    smsSent: num,
    smsReceived: num,
    failedOrBlockedSms: num,
    callsPlaced: num,
    callsReceived: num,
    answeredCalls: num,
    missedCalls: num,
    callMinutes: num,
    callSeconds: num,
    usageSpend: v.string(),
    trend: v.array(
      v.object({ ...point, smsSent: num, smsReceived: num, calls: num, callMinutes: num, spend: v.string() }),
    ),
  }),
  leadSources: v.array(
    v.object({
      source: v.string(),
      sourceId: v.nullable(v.string()),
      leads: num,
      percent: num,
      performance: v.object({
        respondedLeads: num,
        medianResponseMinutes: nullableNum,
        leadSpend: v.string(),
        spendPerRespondedLead: v.nullable(v.string()),
      }),
    }),
  ),
  /** The leaderboard (issue 28): per agent the window's leads were assigned to, fastest median response first. */
  agents: v.array(
    v.object({
      userId: v.string(),
      name: v.nullable(v.string()),
      leads: num,
      respondedLeads: num,
      averageResponseMinutes: nullableNum,
      medianResponseMinutes: nullableNum,
      respondedWithinFiveMinutesPercent: nullableNum,
      missedLeads: num,
    }),
  ),
  automationHealth: v.object({
    automationCount: num,
    enabledCount: num,
    executions: num,
    successCount: num,
    failureCount: num,
    lastFailure: v.nullable(failure),
    failingAutomations: v.array(failure),
  }),
  activationHealth: v.object({
    overallStatus: v.picklist(["Complete", "Incomplete"]),
    items: v.array(
      v.object({
        key: v.string(),
        label: v.string(),
        status: v.picklist(["Complete", "Incomplete"]),
        detail: v.string(),
        actionHref: v.string(),
      }),
    ),
  }),
  needsAttention: v.array(
    v.object({
      severity: v.picklist(["Critical", "Warning", "Info"]),
      title: v.string(),
      detail: v.string(),
      actionHref: v.string(),
      actionText: v.string(),
    }),
  ),
  generatedAt: time,
});
export type AnalyticsReport = v.InferOutput<typeof AnalyticsReportSchema>;
