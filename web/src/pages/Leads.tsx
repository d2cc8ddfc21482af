import { useEffect, useState } from "preact/hooks";
import { api, problemText } from "../api/client";
import type { paths } from "../api/schema";
import { Pager } from "../Pager";
import { fullName } from "../names";

type LeadQuery = NonNullable<paths["/leads/all/my"]["post"]["requestBody"]>["content"]["application/json"];
type LeadPage = paths["/leads/all/my"]["post"]["responses"]["200"]["content"]["application/json"];
type Lead = paths["/leads/{id}"]["get"]["responses"]["200"]["content"]["application/json"];
type EventPage = paths["/events/all/my"]["post"]["responses"]["200"]["content"]["application/json"];

const statuses = ["", "Pending", "Processed", "Duplicate", "Rejected", "Failed"] as const;

/**
 * The paged lead list: the form builds the paging query; "Next" sends back the API's
 * continuation token as it came (never a cursor of our own), "Previous" an earlier one.
 */
export function Leads() {
  const [search, setSearch] = useState("");
  const [status, setStatus] = useState("");
  const [direction, setDirection] = useState<"desc" | "asc">("desc");
  const [pageSize, setPageSize] = useState(25);
  const [tokens, setTokens] = useState<(string | null)[]>([null]);
  // The page shown and its number: the status and the pager follow what has arrived, not what was asked.
  const [loaded, setLoaded] = useState<{ page: LeadPage; number: number } | null>(null);
  const [error, setError] = useState<string | null>(null);
  const token = tokens[tokens.length - 1] ?? null;

  useEffect(() => {
    let current = true;
    const number = tokens.length;
    const body: LeadQuery = {
      pageSize,
      continuationToken: token,
      orderBy: [{ field: "createdAt", direction }],
      search: search.trim() || null,
      filters: status ? [{ field: "processingStatus", value: status }] : null,
      includeCount: tokens.length === 1,
    };
    void api.POST("/leads/all/my", { body }).then(({ data, error: problem }) => {
      if (!current) return;
      setError(data ? null : problemText(problem));
      if (data)
        setLoaded((previous) => ({
          page: data.totalCount != null ? data : { ...data, totalCount: previous?.page.totalCount ?? null, totalCountCapped: previous?.page.totalCountCapped },
          number,
        }));
    });
    return () => void (current = false);
  }, [token, search, status, direction, pageSize]);

  const restart = () => setTokens([null]);
  const page = loaded?.page;
  const loading = loaded?.number !== tokens.length;
  return (
    <>
      <h1>Leads</h1>
      <form class="filters" role="search" onSubmit={(event) => event.preventDefault()}>
        <label>
          Search <input type="search" value={search} onChange={(event) => (setSearch(event.currentTarget.value), restart())} />
        </label>
        <label>
          Status
          <select value={status} onChange={(event) => (setStatus(event.currentTarget.value), restart())}>
            {statuses.map((value) => (
              <option value={value}>{value || "Any"}</option>
            ))}
          </select>
        </label>
        <label>
          Order
          <select value={direction} onChange={(event) => (setDirection(event.currentTarget.value as "asc" | "desc"), restart())}>
            <option value="desc">Newest first</option>
            <option value="asc">Oldest first</option>
          </select>
        </label>
        <label>
          Page size
          <select value={pageSize} onChange={(event) => (setPageSize(Number(event.currentTarget.value)), restart())}>
            {[10, 25, 50, 100].map((size) => (
              <option value={size}>{size}</option>
            ))}
          </select>
        </label>
      </form>
      {error && <p role="alert" class="error">{error}</p>}
      {loaded && page && (
        <>
          <p role="status">
            Page {loaded.number} · {page.items.length} shown
            {/* A capped count is a lower bound (the server counts within a read budget). */}
            {page.totalCount != null && ` · ${page.totalCount}${page.totalCountCapped ? "+" : ""} leads in all`}
          </p>
          <table class="list" data-testid="leads">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Phone</th>
                <th scope="col">Email</th>
                <th scope="col">Status</th>
                <th scope="col">Created</th>
              </tr>
            </thead>
            <tbody>
              {page.items.map((lead) => (
                <tr data-lead-id={lead.id}>
                  <th scope="row">
                    <a href={`#/leads/${encodeURIComponent(lead.id)}`}>{fullName(lead.contact) || lead.id}</a>
                  </th>
                  <td>{lead.contact.phone?.number ?? "—"}</td>
                  <td>{lead.contact.email ?? "—"}</td>
                  <td>{lead.processingStatus}</td>
                  <td>{new Date(lead.createdAt).toLocaleString()}</td>
                </tr>
              ))}
            </tbody>
          </table>
          <Pager label="Pages" tokens={tokens} next={page.continuationToken} busy={loading} onChange={setTokens} />
        </>
      )}
    </>
  );
}


/** One lead: contact, metadata with its consent state, and the timeline of its events. */
export function LeadPage({ id }: { id: string }) {
  const [lead, setLead] = useState<Lead | null>(null);
  const [events, setEvents] = useState<EventPage["items"]>([]);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    void api.GET("/leads/{id}", { params: { path: { id } } }).then(({ data, error: problem }) => (data ? setLead(data) : setError(problemText(problem))));
    void api
      .POST("/events/all/my", { body: { pageSize: 100, filters: [{ field: "leadId", value: id }], orderBy: [{ field: "createdAt", direction: "desc" }] } })
      .then(({ data }) => data && setEvents(data.items));
  }, [id]);
  if (error) return <p role="alert" class="error">{error}</p>;
  if (!lead) return <p role="status">Loading…</p>;
  const metadata = Object.entries(lead.metadata).filter(([, value]) => value !== null && typeof value !== "object");
  return (
    <>
      <p>
        <a href="#/leads">← All leads</a>
      </p>
      <h1>{fullName(lead.contact) || lead.id}</h1>
      <div class="grid">
        <section aria-labelledby="contact">
          <h2 id="contact">Contact</h2>
          <dl class="totals">
            <dt>Phone</dt>
            <dd>{lead.contact.phone?.number ?? "—"}</dd>
            <dt>Email</dt>
            <dd>{lead.contact.email ?? "—"}</dd>
            <dt>Status</dt>
            <dd>{lead.processingStatus}</dd>
            <dt>SMS consent</dt>
            <dd data-testid="consent">
              {lead.metadata.smsConsentStatus ?? "—"}
              {lead.metadata.smsOptedOut ? " (opted out)" : ""}
            </dd>
          </dl>
        </section>
        <section aria-labelledby="metadata">
          <h2 id="metadata">Metadata</h2>
          <dl class="totals">
            {metadata.map(([key, value]) => (
              <>
                <dt>{key}</dt>
                <dd>{String(value)}</dd>
              </>
            ))}
          </dl>
        </section>
      </div>
      <section aria-labelledby="timeline">
        <h2 id="timeline">Timeline</h2>
        <ol class="timeline">
          {events.map((event) => (
            <li>
              <time dateTime={event.createdAt}>{new Date(event.createdAt).toLocaleString()}</time> <strong>{event.eventType}</strong> {event.summary ?? event.description ?? ""}
              {event.status && <span class="badge">{event.status}</span>}
            </li>
          ))}
        </ol>
      </section>
    </>
  );
}
