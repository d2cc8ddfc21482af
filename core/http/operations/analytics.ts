import { AnalyticsQuerySchema, AnalyticsReportSchema } from "#core/analytics/index";
import { routedBy } from "#core/http/operation";
import { analyticsRoutes } from "#stacks/definitions";

const defineOperation = routedBy(analyticsRoutes);

const window =
  "`startAt` (date-time, inclusive), `endAt` (date-time, exclusive, default now), `days` (1-365, default 30, counted back from `endAt`; " +
  "not with `startAt`). A start at or after the end, both `days` and `startAt`, a bad date or a window over 365 days is a 400. " +
  "Trend buckets are UTC hours (2 days or less), days, or ISO weeks (over 90 days). Definitions: docs/analytics.md.";

export const getAnalytics = /* @__PURE__ */ defineOperation({
  operationId: "getAnalytics",
  summary:
    "Customer analytics of the organization: leads, response times, messaging, calls, spend, sources, health (endpoint 3)",
  description: window,
  tag: "Analytics",
  auth: "bearer",
  permission: "analytics:read",
  query: AnalyticsQuerySchema,
  success: { status: 200, description: "Customer analytics (spec 2.3)", schema: AnalyticsReportSchema },
  problems: [400, 401, 403, 429],
});

// Apart from the operation: an interpolated string is kept by the bundler as if it had effects, and with it every
// schema beside it in the operation's arguments (the operation itself is `@__PURE__`, dropped where unused).
const exportDescription =
  `${window} RFC 4180 CSV in UTF-8 with a header row and CRLF line ends, served as an attachment. Columns, in order: ` +
  "startAt, endAt, label, leads, respondedLeads, averageResponseMinutes, medianResponseMinutes, respondedWithinFiveMinutesPercent, " +
  "smsSent, smsReceived, failedOrBlockedSms, callsPlaced, callsReceived, answeredCalls, missedCalls, callSeconds, callMinutes, usageSpend, " +
  "agentUserId, agentName, missedLeads. After the trend buckets, one row per agent of the leaderboard (the report's `agents`) " +
  "over the whole window, with agentUserId set; sum only the rows without agentUserId to get the window's totals.";

export const exportAnalytics = /* @__PURE__ */ defineOperation({
  operationId: "exportAnalytics",
  summary: "Analytics trend as CSV: one row per trend bucket, then per agent (endpoint 4)",
  description: exportDescription,
  tag: "Analytics",
  auth: "bearer",
  permission: "analytics:read",
  query: AnalyticsQuerySchema,
  success: { status: 200, description: "The CSV file", contentType: "text/csv" },
  problems: [400, 401, 403, 429],
});
