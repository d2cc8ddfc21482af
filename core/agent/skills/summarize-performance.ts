import * as v from "valibot";
import { allAutomations, automationCounts } from "#core/agent/skills/automation-health";
import { defineSkill } from "#core/agent/skills/skill";
import { Leads } from "#core/leads/index";

const dayMs = 24 * 60 * 60 * 1000;

/** Figures of spec 2.3 this summary cannot report until the analytics module exists. */
const notYetAvailable = ["leadsComparison", "responseMetrics", "communicationUsage", "leadSources", "usageSpend"] as const;

/**
 * Performance summary. Until `core/analytics` lands (Analytics.summary), it
 * reports honestly what the stored data supports today (leads received in the
 * period, the automations' health) and names the figures that are not available yet.
 */
export const summarizePerformance = defineSkill({
  permissions: ["analytics:read"],
  input: v.strictObject({
    days: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1, "days must be 1-365."), v.maxValue(365, "days must be 1-365.")), 30),
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
    const endAt = new Date();
    const startAt = new Date(endAt.getTime() - input.days * dayMs);
    const [{ automations }, leadPage] = await Promise.all([
      allAutomations(actor),
      Leads.list(actor, {
        pageSize: 1,
        includeCount: true,
        rangeFilters: [{ field: "createdAt", greaterThanOrEqual: startAt.toISOString(), lessThan: endAt.toISOString() }],
      }),
    ]);
    const automationHealth = automationCounts(automations);
    const leads = leadPage.totalCount ?? 0;
    return {
      text:
        `In the last ${input.days} day${input.days === 1 ? "" : "s"}: ${leads} new lead${leads === 1 ? "" : "s"}. ` +
        `Automations: ${automationHealth.automationCount}, ${automationHealth.enabledCount} enabled, ${automationHealth.failingCount} failing. ` +
        "Response times, messaging, calls and spend are not available yet.",
      data: {
        range: { startAt: startAt.toISOString(), endAt: endAt.toISOString() },
        days: input.days,
        complete: false,
        leads,
        notYetAvailable: [...notYetAvailable],
        automationHealth,
      },
    };
  },
});
