import * as v from "valibot";
import { defineSkill } from "#core/agent/skills/skill";
import { analyticsSummary, type AnalyticsReport } from "#core/analytics/index";

const minutes = (value: number | null) => (value === null ? "n/a" : `${Math.round(value * 10) / 10} min`);
const change = ({ changePercent, direction }: AnalyticsReport["summary"]["leadsComparison"]) =>
  changePercent === null
    ? "no earlier leads to compare"
    : `${direction} ${Math.abs(changePercent)}% on the previous period`;

/** People's version of the report: the headline figures in a few sentences. */
function describe(days: number, report: AnalyticsReport): string {
  const { summary, automationHealth, needsAttention } = report;
  return [
    `Last ${days} day${days === 1 ? "" : "s"}: ${summary.leads} new lead${summary.leads === 1 ? "" : "s"} (${change(summary.leadsComparison)}).`,
    `Response: average ${minutes(summary.averageResponseMinutes)}, median ${minutes(summary.medianResponseMinutes)}, ` +
      `${summary.respondedWithinFiveMinutesPercent ?? "n/a"}% within 5 minutes; ${summary.missedLeads} missed.`,
    `SMS ${summary.smsSent} sent, ${summary.smsReceived} received; calls ${summary.callsPlaced} placed, ${summary.callsReceived} received, ${summary.missedCalls} missed; spend ${summary.usageSpend}.`,
    `Automations: ${automationHealth.automationCount} (${automationHealth.enabledCount} enabled, ${automationHealth.failingAutomations.length} failing).`,
    needsAttention.length
      ? `Needs attention: ${needsAttention.map((item) => item.title).join("; ")}.`
      : "Nothing needs attention.",
  ].join(" ");
}

/**
 * Performance summary from `analyticsSummary` (the report of `GET /analytics/my`
 * over the last `days` days). The data part carries the report without its
 * trend series, which belong to the charts of `GET /analytics/my`.
 */
export const summarizePerformance = defineSkill({
  permissions: ["analytics:read"],
  input: v.strictObject({
    days: v.optional(
      v.pipe(v.number(), v.integer(), v.minValue(1, "days must be 1-365."), v.maxValue(365, "days must be 1-365.")),
      30,
    ),
  }),
  fromText(text) {
    const days = /\b(\d{1,3})\s*days?\b/i.exec(text)?.[1];
    if (days) return { days: Number(days) };
    if (/\b(today|24 hours)\b/i.test(text)) return { days: 1 };
    if (/\bweek\b/i.test(text)) return { days: 7 };
    if (/\bquarter\b/i.test(text)) return { days: 90 };
    if (/\byear\b/i.test(text)) return { days: 365 };
    return {};
  },
  async run(actor, input) {
    const report = await analyticsSummary(actor, { days: input.days });
    const { leadTrend, responseMetrics, communicationUsage, ...rest } = report;
    const { points: _points, ...leadTotals } = leadTrend;
    const { averageMinutesTrend: _responseTrend, ...response } = responseMetrics;
    const { trend: _usageTrend, ...usage } = communicationUsage;
    return {
      text: describe(input.days, report),
      data: { days: input.days, ...rest, leadTrend: leadTotals, responseMetrics: response, communicationUsage: usage },
    };
  },
});
