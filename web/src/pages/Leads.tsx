import { useEffect, useState } from "preact/hooks";
import { api, problemText } from "../api/client";
import type { paths } from "../api/schema";
import { Pager } from "../Pager";
import { fullName } from "../names";
import { ReplyBox } from "./Conversations";
import { LeadActions } from "./LeadActions";
import { NoteBox } from "../NoteBox";

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
          page:
            data.totalCount != null
              ? data
              : {
                  ...data,
                  totalCount: previous?.page.totalCount ?? null,
                  totalCountCapped: previous?.page.totalCountCapped,
                },
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
          Search{" "}
          <input type="search" value={search} onChange={(event) => (setSearch(event.currentTarget.value), restart())} />
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
          <select
            value={direction}
            onChange={(event) => (setDirection(event.currentTarget.value as "asc" | "desc"), restart())}
          >
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
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
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

/** Labels a person reads for the lead's metadata; keys not listed here are spelled out from their camelCase. */
const metadataLabels: Record<string, string> = {
  certifiedFormUrl: "Certified form URL",
  utmSource: "UTM source",
  utmMedium: "UTM medium",
  utmCampaign: "UTM campaign",
  utmTerm: "UTM term",
  utmContent: "UTM content",
  landingPage: "Landing page",
  subId: "Sub ID",
  pubId: "Publisher ID",
  ipAddress: "IP address",
  userAgent: "Browser",
  externalId: "External ID",
  sellerLeadId: "Seller's lead ID",
  createdAt: "Created at the seller",
  directPostPrice: "Direct-post price",
  complianceStatus: "Compliance",
  complianceBlockedReason: "Compliance block reason",
};
/** Shown elsewhere on the page (consent) or internal references a person has no use for. */
const metadataShownElsewhere = new Set([
  "businessId",
  "userId",
  "assignedPhoneNumberId",
  "smsConsentStatus",
  "smsOptedOut",
  "smsOptOutAt",
  "smsOptInAt",
  "smsHelpRequestedAt",
  "smsConsentPhoneNumber",
]);

export function fieldLabel(key: string): string {
  if (metadataLabels[key]) return metadataLabels[key];
  const words = key.replace(/([a-z0-9])([A-Z])/g, "$1 $2").toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

const isoDateTime = /^\d{4}-\d\d-\d\dT\d\d:\d\d/;
const when = (value: string | null | undefined) => (value ? new Date(value).toLocaleString() : null);

type TimelineEvent = EventPage["items"][number];
/** One row of the timeline: a message or call with all its events (newest first), or a single event about the lead. */
interface TimelineRow {
  key: string;
  latest: TimelineEvent;
  events: TimelineEvent[];
}

/**
 * Folds the lead's events (newest first) into one row per message or call, showing the newest event's status: a text
 * goes Accepted → Queued → Sending → Sent → Delivered, and a person wants to see that it was delivered, once.
 */
export function timelineRows(events: TimelineEvent[]): TimelineRow[] {
  const rows: TimelineRow[] = [];
  const byEntity = new Map<string, TimelineRow>();
  for (const event of events) {
    const entity =
      event.relatedEntityType === "Message" || event.relatedEntityType === "Call"
        ? `${event.relatedEntityType}:${event.relatedEntityId}`
        : null;
    const row = entity ? byEntity.get(entity) : undefined;
    if (row) row.events.push(event);
    else {
      const created = { key: entity ?? event.id, latest: event, events: [event] };
      rows.push(created);
      if (entity) byEntity.set(entity, created);
    }
  }
  return rows;
}

const noteEvents = new Set(["LeadNoteAdded", "ConversationNoteAdded"]);
const assignmentEvents = new Set(["LeadAssigned", "LeadUnassigned", "LeadOffered"]);

function rowTitle({ latest }: TimelineRow): string {
  const inbound = latest.direction === "Inbound";
  if (latest.relatedEntityType === "Message") return inbound ? "Text received" : "Text sent";
  if (latest.relatedEntityType === "Call") return inbound ? "Call in" : "Call out";
  if (noteEvents.has(latest.eventType)) return `Note by ${latest.actorDisplayName ?? "someone"}`;
  return fieldLabel(latest.eventType);
}

/** The row's line: a note's own words, whom an assignment went to, else the event's short summary. */
function rowText({ latest }: TimelineRow): string {
  if (assignmentEvents.has(latest.eventType)) return latest.description ?? latest.summary ?? "";
  return latest.summary ?? latest.description ?? "";
}

/** One lead: contact, source and consent, the rest of its metadata in words, and the timeline of its messages and calls. */
export function LeadPage({ id }: { id: string }) {
  const [lead, setLead] = useState<Lead | null>(null);
  const [sourceName, setSourceName] = useState<string | null>(null);
  const [events, setEvents] = useState<EventPage["items"]>([]);
  const [error, setError] = useState<string | null>(null);
  const [eventsVersion, setEventsVersion] = useState(0);
  useEffect(() => {
    void api.GET("/leads/{id}", { params: { path: { id } } }).then(async ({ data, error: problem }) => {
      if (!data) return setError(problemText(problem));
      setLead(data);
      if (data.sourceId) {
        const source = await api.GET("/sources/{id}", { params: { path: { id: data.sourceId } } });
        setSourceName(source.data?.name ?? null);
      }
    });
  }, [id]);
  useEffect(() => {
    void api
      .POST("/events/all/my", {
        body: {
          pageSize: 100,
          filters: [{ field: "leadId", value: id }],
          orderBy: [{ field: "createdAt", direction: "desc" }],
        },
      })
      .then(({ data }) => data && setEvents(data.items));
  }, [id, eventsVersion]);
  if (error)
    return (
      <p role="alert" class="error">
        {error}
      </p>
    );
  if (!lead) return <p role="status">Loading…</p>;
  const { metadata } = lead;
  const details = Object.entries(metadata).filter(
    ([key, value]) => value !== null && typeof value !== "object" && !metadataShownElsewhere.has(key),
  );
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
            <dt>Source</dt>
            <dd data-testid="source">{sourceName ?? (lead.sourceId ? "…" : "Added by hand or through the API")}</dd>
            <dt>Status</dt>
            <dd>
              {lead.processingStatus}
              {lead.processingReason && ` (${lead.processingReason})`}
            </dd>
            <dt>Received</dt>
            <dd>{when(lead.createdAt)}</dd>
          </dl>
        </section>
        <section aria-labelledby="consent">
          <h2 id="consent">Text consent</h2>
          <dl class="totals">
            <dt>Consent</dt>
            <dd data-testid="consent">
              {metadata.smsOptedOut ? "Opted out: texts are blocked" : (metadata.smsConsentStatus ?? "Unknown")}
            </dd>
            {metadata.smsConsentPhoneNumber && (
              <>
                <dt>For number</dt>
                <dd>{metadata.smsConsentPhoneNumber}</dd>
              </>
            )}
            {metadata.smsOptInAt && (
              <>
                <dt>Opted in</dt>
                <dd>{when(metadata.smsOptInAt)}</dd>
              </>
            )}
            {metadata.smsOptOutAt && (
              <>
                <dt>Opted out</dt>
                <dd>{when(metadata.smsOptOutAt)}</dd>
              </>
            )}
            {metadata.smsHelpRequestedAt && (
              <>
                <dt>Asked for help</dt>
                <dd>{when(metadata.smsHelpRequestedAt)}</dd>
              </>
            )}
          </dl>
        </section>
        {details.length > 0 && (
          <section aria-labelledby="details">
            <h2 id="details">Details</h2>
            <dl class="totals" data-testid="details">
              {details.map(([key, value]) => (
                <>
                  <dt>{fieldLabel(key)}</dt>
                  <dd>{typeof value === "string" && isoDateTime.test(value) ? when(value) : String(value)}</dd>
                </>
              ))}
            </dl>
          </section>
        )}
      </div>
      <LeadActions lead={lead} onChange={setLead} />
      {lead.contact.phone?.number && (
        <section aria-labelledby="text-lead">
          <h2 id="text-lead">Send a text</h2>
          <ReplyBox
            target={{ leadId: lead.id }}
            label="Text message"
            onSent={() => setEventsVersion((version) => version + 1)}
          />
        </section>
      )}
      <section aria-labelledby="lead-note">
        <h2 id="lead-note">Add a note</h2>
        <NoteBox
          label="Note about this lead (only your team sees it)"
          save={async (body) => {
            const { data, error: problem } = await api.POST("/leads/{id}/notes", {
              params: { path: { id: lead.id } },
              body: { body },
            });
            return data ? null : problemText(problem);
          }}
          onAdded={() => setEventsVersion((version) => version + 1)}
        />
      </section>
      <section aria-labelledby="timeline">
        <h2 id="timeline">Timeline</h2>
        <ol class="timeline" data-testid="timeline">
          {timelineRows(events).map((row) => (
            <li data-entity={row.key}>
              <details>
                <summary>
                  <time dateTime={row.latest.createdAt}>{when(row.latest.createdAt)}</time>{" "}
                  <strong>{rowTitle(row)}</strong> {rowText(row)}
                  {row.latest.status && (
                    <span class="badge" data-testid="row-status">
                      {row.latest.status}
                    </span>
                  )}
                </summary>
                <ol class="steps">
                  {row.events.map((event) => (
                    <li>
                      <time dateTime={event.createdAt}>{when(event.createdAt)}</time> {fieldLabel(event.eventType)}
                      {event.status && ` · ${event.status}`}
                      {event.statusReason && ` (${event.statusReason})`}
                    </li>
                  ))}
                </ol>
              </details>
            </li>
          ))}
        </ol>
      </section>
    </>
  );
}
