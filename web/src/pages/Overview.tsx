import { useEffect, useMemo, useState } from "preact/hooks";
import { api, apiBaseUrl, problemText } from "../api/client";
import { accessToken } from "../api/session";
import type { paths } from "../api/schema";
import { Card } from "../Card";
import { Chart } from "../Chart";
import { money } from "../money";

type Report = paths["/analytics/my"]["get"]["responses"]["200"]["content"]["application/json"];
type RangeQuery = { days: string } | { startAt: string; endAt: string };

const presets = ["7", "30", "90", "365"] as const;

/** The analytics report (spec 2.3) as a screen: every number shown is the API's number. */
export function Overview() {
  const [query, setQuery] = useState<RangeQuery>({ days: "30" });
  const [report, setReport] = useState<Report | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    let current = true;
    setError(null);
    void api.GET("/analytics/my", { params: { query } }).then(({ data, error: problem }) => {
      if (!current) return;
      if (data) setReport(data);
      else setError(problemText(problem));
    });
    return () => void (current = false);
  }, [query]);

  return (
    <>
      <div class="toolbar">
        <h1>Overview</h1>
        <RangePicker query={query} onChange={setQuery} />
        <button type="button" onClick={() => void downloadCsv(query)}>
          Download CSV
        </button>
      </div>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      {report ? <ReportView report={report} /> : !error && <p role="status">Loading…</p>}
    </>
  );
}

function RangePicker({ query, onChange }: { query: RangeQuery; onChange: (query: RangeQuery) => void }) {
  const [startAt, setStartAt] = useState("");
  const [endAt, setEndAt] = useState("");
  return (
    <form
      class="range"
      aria-label="Date range"
      onSubmit={(event) => {
        event.preventDefault();
        // Dates are UTC days; endAt is exclusive as in the API, so the end day is included by asking for the next midnight.
        if (startAt && endAt) onChange({ startAt: `${startAt}T00:00:00Z`, endAt: nextDay(endAt) });
      }}
    >
      <label>
        Range
        <select
          value={"days" in query ? query.days : "custom"}
          onChange={(event) => {
            const value = event.currentTarget.value;
            if (value !== "custom") onChange({ days: value });
          }}
        >
          {presets.map((days) => (
            <option value={days}>Last {days} days</option>
          ))}
          <option value="custom">Custom dates</option>
        </select>
      </label>
      <label>
        From <input type="date" value={startAt} onInput={(event) => setStartAt(event.currentTarget.value)} />
      </label>
      <label>
        To (inclusive) <input type="date" value={endAt} onInput={(event) => setEndAt(event.currentTarget.value)} />
      </label>
      <button type="submit" class="secondary">
        Apply dates
      </button>
    </form>
  );
}

function nextDay(day: string): string {
  const date = new Date(`${day}T00:00:00Z`);
  date.setUTCDate(date.getUTCDate() + 1);
  return date.toISOString();
}

async function downloadCsv(query: RangeQuery): Promise<void> {
  // The export needs the Authorization header, so it is fetched and handed to the browser as a blob (no token in a URL).
  const response = await fetch(`${apiBaseUrl}/analytics/my/export?${new URLSearchParams(query)}`, {
    headers: { authorization: `Bearer ${(await accessToken()) ?? ""}` },
  });
  if (!response.ok) return;
  const name = /filename="([^"]+)"/.exec(response.headers.get("content-disposition") ?? "")?.[1] ?? "analytics.csv";
  const link = document.createElement("a");
  link.href = URL.createObjectURL(await response.blob());
  link.download = name;
  link.click();
  URL.revokeObjectURL(link.href);
}

function minutes(value: number | null): string {
  return value === null ? "—" : `${value} min`;
}

function percent(value: number | null): string {
  return value === null ? "—" : `${value}%`;
}

function ReportView({ report }: { report: Report }) {
  const { summary, leadTrend, responseMetrics, communicationUsage, automationHealth, activationHealth } = report;
  const comparison = leadTrend.comparison;
  const trendLabels = useMemo(() => leadTrend.points.map((point) => point.label), [report]);
  const leadSeries = useMemo(
    () => [{ label: "Leads", values: leadTrend.points.map((point) => point.value), color: "#2563eb" }],
    [report],
  );
  const responseSeries = useMemo(
    () => [
      {
        label: "Average minutes",
        values: responseMetrics.averageMinutesTrend.map((point) => point.value),
        color: "#16a34a",
      },
    ],
    [report],
  );
  const usageLabels = useMemo(() => communicationUsage.trend.map((point) => point.label), [report]);
  const usageSeries = useMemo(
    () => [
      { label: "SMS sent", values: communicationUsage.trend.map((point) => point.smsSent), color: "#2563eb" },
      { label: "SMS received", values: communicationUsage.trend.map((point) => point.smsReceived), color: "#9333ea" },
      { label: "Calls", values: communicationUsage.trend.map((point) => point.calls), color: "#ea580c" },
      { label: "Call minutes", values: communicationUsage.trend.map((point) => point.callMinutes), color: "#0d9488" },
      { label: "Spend", values: communicationUsage.trend.map((point) => Number(point.spend)), color: "#b91c1c" },
    ],
    [report],
  );
  return (
    <>
      <section aria-labelledby="kpis" class="cards">
        <h2 id="kpis" class="visually-hidden">
          Key figures
        </h2>
        <Card label="Leads" value={String(leadTrend.total)} testId="lead-total" href="#/leads">
          {comparison.changePercent === null
            ? `previous period ${comparison.previous}`
            : `${comparison.direction} ${comparison.changePercent}% vs previous (${comparison.previous})`}
        </Card>
        <Card label="Median response" value={minutes(responseMetrics.medianMinutes)} testId="median-response" />
        <Card label="Average response" value={minutes(responseMetrics.averageMinutes)} />
        <Card label="Answered within 5 min" value={percent(responseMetrics.respondedWithinFiveMinutesPercent)} />
        {/* Missed and waiting are different counts: say which is which so they never seem to disagree. */}
        <Card label="Missed leads" value={String(summary.missedLeads)} href="#/leads">
          no answer within an hour
        </Card>
        <Card label="Unread messages" value={String(summary.unreadMessages)} href="#/conversations" />
        <Card label="Missed calls" value={String(summary.missedCalls)} href="#/calls" testId="missed-calls" />
        <Card label="Wallet" value={money(summary.walletBalance)} href="#/billing">
          {summary.walletStatus}
        </Card>
      </section>
      <section aria-labelledby="needs-attention">
        <h2 id="needs-attention">Needs attention</h2>
        {report.needsAttention.length === 0 ? (
          <p>Nothing needs attention.</p>
        ) : (
          <ul class="attention">
            {report.needsAttention.map((item) => (
              <li class={item.severity.toLowerCase()}>
                <strong>
                  {item.severity}: {item.title}
                </strong>{" "}
                {item.detail} <ActionLink href={item.actionHref}>{item.actionText}</ActionLink>
              </li>
            ))}
          </ul>
        )}
      </section>
      <div class="grid">
        <Chart title={`Lead trend (${leadTrend.granularity.toLowerCase()})`} labels={trendLabels} series={leadSeries} />
        <Chart title="Average response minutes" labels={trendLabels} series={responseSeries} />
        <Chart title="Communication usage" labels={usageLabels} series={usageSeries} />
        <section aria-labelledby="usage-totals">
          <h2 id="usage-totals">Communication totals</h2>
          <dl class="totals">
            <dt>SMS sent</dt>
            <dd>{communicationUsage.smsSent}</dd>
            <dt>SMS received</dt>
            <dd>{communicationUsage.smsReceived}</dd>
            <dt>Failed or blocked SMS</dt>
            <dd>{communicationUsage.failedOrBlockedSms}</dd>
            <dt>Calls placed / received</dt>
            <dd>
              {communicationUsage.callsPlaced} / {communicationUsage.callsReceived}
            </dd>
            <dt>Call minutes</dt>
            <dd>{communicationUsage.callMinutes}</dd>
            <dt>Spend</dt>
            <dd>{communicationUsage.usageSpend}</dd>
          </dl>
        </section>
      </div>
      <div class="grid">
        <section aria-labelledby="sources">
          <h2 id="sources">Lead sources</h2>
          <table data-testid="sources">
            <thead>
              <tr>
                <th scope="col">Source</th>
                <th scope="col">Leads</th>
                <th scope="col">Share</th>
                <th scope="col">Median response</th>
                <th scope="col">Lead spend</th>
              </tr>
            </thead>
            <tbody>
              {report.leadSources.map((source) => (
                <tr>
                  <th scope="row">{source.source}</th>
                  <td>{source.leads}</td>
                  <td>
                    <span class="bar" style={{ width: `${source.percent}%` }} aria-hidden="true" />
                    {source.percent}%
                  </td>
                  <td>{minutes(source.performance.medianResponseMinutes)}</td>
                  <td>{source.performance.leadSpend}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </section>
        <section aria-labelledby="automation-health">
          <h2 id="automation-health">Automation health</h2>
          <p>
            {automationHealth.enabledCount} of {automationHealth.automationCount} enabled ·{" "}
            {automationHealth.executions} runs, {automationHealth.successCount} succeeded,{" "}
            {automationHealth.failureCount} failed
          </p>
          {automationHealth.failingAutomations.length > 0 && (
            <ul>
              {automationHealth.failingAutomations.map((failing) => (
                <li>
                  <strong>{failing.name}</strong> failed {failing.failedAt ?? ""}:{" "}
                  {failing.error ?? "no error recorded"}
                </li>
              ))}
            </ul>
          )}
        </section>
        <section aria-labelledby="activation">
          <h2 id="activation">Activation ({activationHealth.overallStatus})</h2>
          <ul class="checklist">
            {activationHealth.items.map((item) => (
              <li class={item.status === "Complete" ? "done" : "todo"}>
                <span aria-hidden="true">{item.status === "Complete" ? "✔" : "○"}</span> <strong>{item.label}</strong>{" "}
                <span class="visually-hidden">{item.status}</span> {item.detail}{" "}
                {item.status !== "Complete" && <ActionLink href={item.actionHref}>Set up</ActionLink>}
              </li>
            ))}
          </ul>
        </section>
      </div>
    </>
  );
}

/** The app's page for an API path the report names (`/phone-numbers/<id>/health` → the Numbers page), if any. */
export function appRouteOf(href: string): string | undefined {
  const [, section = "", id] = href.split("/");
  if (section === "automations") return id ? `#/automations/${id}` : "#/automations";
  const pages: Record<string, string> = {
    leads: "#/leads",
    conversations: "#/conversations",
    billing: "#/billing",
    "phone-numbers": "#/numbers",
    "carrier-registration": "#/registration",
    "webhook-endpoints": "#/webhooks",
    sources: "#/sources",
    calls: "#/calls",
  };
  return pages[section];
}

/** The API's actionHref is an API path: a link to the app's page where the fix is made, else the API route to use. */
function ActionLink({ href, children }: { href: string; children: preact.ComponentChildren }) {
  const route = appRouteOf(href);
  if (!route) return <code title="API route">{href}</code>;
  return <a href={route}>{children}</a>;
}
