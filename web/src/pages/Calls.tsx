import { useEffect, useState } from "preact/hooks";
import { api, problemText } from "../api/client";
import type { paths } from "../api/schema";
import { fullName } from "../names";
import { Pager } from "../Pager";
import { usePaged } from "../usePaged";

type CallPage = paths["/calls/all/my"]["post"]["responses"]["200"]["content"]["application/json"];
type Call = CallPage["items"][number];

const statusWords: Record<string, string> = {
  Queued: "Queued",
  Ringing: "Ringing",
  InProgress: "In progress",
  Completed: "Answered",
  Busy: "Busy",
  NoAnswer: "No answer",
  Failed: "Failed",
  Canceled: "Canceled",
};

/** "2 min 5 s". */
function duration(seconds: number | null): string {
  if (!seconds) return "—";
  const minutes = Math.floor(seconds / 60);
  return minutes ? `${minutes} min ${seconds % 60} s` : `${seconds} s`;
}

/** The contact's side of a call: who called us, or whom we called. */
const contactOf = (call: Call) => (call.direction === "Inbound" ? call.fromPhoneNumber : call.toPhoneNumber);

/** The names of the leads of these calls: one GET /leads/{id} per lead not named yet. */
function useLeadNames(calls: Call[]): Record<string, string> {
  const [names, setNames] = useState<Record<string, string>>({});
  useEffect(() => {
    const missing = [...new Set(calls.map((call) => call.leadId).filter((id): id is string => !!id && !(id in names)))];
    if (missing.length === 0) return;
    void Promise.all(
      missing.map(async (id) => {
        const { data } = await api.GET("/leads/{id}", { params: { path: { id } } });
        return [id, data ? fullName(data.contact) : ""] as const;
      }),
    ).then((found) => setNames((current) => ({ ...current, ...Object.fromEntries(found) })));
  }, [calls.map((call) => call.leadId).join()]);
  return names;
}

/** One call: who, which way, its outcome, when, how long, its recording, and a button to call back. */
function CallRow({ call, name, onCallBack }: { call: Call; name: string; onCallBack: (call: Call) => void }) {
  const contact = contactOf(call);
  return (
    <tr data-call-id={call.id} class={call.missed ? "failed" : ""}>
      <th scope="row">
        {call.leadId && name ? <a href={`#/leads/${call.leadId}`}>{name}</a> : null} <span>{contact}</span>
      </th>
      <td>{call.direction === "Inbound" ? "Called us" : "We called"}</td>
      <td data-testid="call-outcome">{call.missed ? "Missed" : (statusWords[call.status] ?? call.status)}</td>
      <td>{new Date(call.createdAt).toLocaleString()}</td>
      <td>{duration(call.duration)}</td>
      <td>
        {call.recordingUrl ? (
          <a href={call.recordingUrl} target="_blank" rel="noreferrer">
            Recording
          </a>
        ) : (
          "—"
        )}
      </td>
      <td>
        <button type="button" class={call.missed ? "" : "secondary"} onClick={() => onCallBack(call)}>
          Call back<span class="visually-hidden"> {name || contact}</span>
        </button>
      </td>
    </tr>
  );
}

function CallTable({
  calls,
  names,
  testId,
  onCallBack,
}: {
  calls: Call[];
  names: Record<string, string>;
  testId: string;
  onCallBack: (call: Call) => void;
}) {
  return (
    <table class="list stacked" data-testid={testId}>
      <thead>
        <tr>
          <th scope="col">Contact</th>
          <th scope="col">Direction</th>
          <th scope="col">Outcome</th>
          <th scope="col">When</th>
          <th scope="col">Talk time</th>
          <th scope="col">Recording</th>
          <th scope="col">
            <span class="visually-hidden">Call back</span>
          </th>
        </tr>
      </thead>
      <tbody>
        {calls.map((call) => (
          <CallRow call={call} name={call.leadId ? (names[call.leadId] ?? "") : ""} onCallBack={onCallBack} />
        ))}
      </tbody>
    </table>
  );
}

/**
 * The call log: missed calls first (the ones to call back), then every call newest first. "Call back" places the call
 * through the API: with call forwarding's agent phone set, that phone rings first and is bridged to the contact.
 */
export function Calls() {
  const missed = usePaged<CallPage>((continuationToken) =>
    api.POST("/calls/all/my", {
      body: { pageSize: 20, continuationToken, filters: [{ field: "missed", value: true }] },
    }),
  );
  const all = usePaged<CallPage>((continuationToken) =>
    api.POST("/calls/all/my", { body: { pageSize: 25, continuationToken } }),
  );
  const names = useLeadNames([...(missed.page?.items ?? []), ...(all.page?.items ?? [])]);
  const [answer, setAnswer] = useState<{ ok: boolean; text: string } | null>(null);

  async function callBack(call: Call) {
    const contact = contactOf(call);
    const { data, error } = await api.POST("/calls", {
      params: { header: { "Idempotency-Key": crypto.randomUUID() } },
      body: call.leadId ? { leadId: call.leadId } : { to: contact },
    });
    setAnswer(
      data
        ? {
            ok: true,
            text: data.connectTo
              ? `Calling ${contact}: your phone (${data.connectTo}) rings first, then the call is connected.`
              : `Calling ${contact} from ${data.fromPhoneNumber}.`,
          }
        : { ok: false, text: problemText(error) },
    );
    all.reload();
  }

  return (
    <>
      <h1>Calls</h1>
      {answer && (
        <p role={answer.ok ? "status" : "alert"} class={answer.ok ? "" : "error"} data-testid="call-answer">
          {answer.text}
        </p>
      )}
      <section aria-labelledby="missed-calls">
        <h2 id="missed-calls">Missed calls</h2>
        {missed.error && (
          <p role="alert" class="error">
            {missed.error}
          </p>
        )}
        {missed.page && missed.page.items.length === 0 && <p>No missed call.</p>}
        {missed.page && missed.page.items.length > 0 && (
          <CallTable calls={missed.page.items} names={names} testId="missed-calls" onCallBack={callBack} />
        )}
        {missed.page?.continuationToken || missed.tokens.length > 1 ? (
          <Pager
            label="Missed call pages"
            tokens={missed.tokens}
            next={missed.page?.continuationToken}
            onChange={missed.setTokens}
          />
        ) : null}
      </section>
      <section aria-labelledby="all-calls">
        <h2 id="all-calls">All calls</h2>
        {all.error && (
          <p role="alert" class="error">
            {all.error}
          </p>
        )}
        {all.page && all.page.items.length === 0 && <p>No call yet.</p>}
        {all.page && all.page.items.length > 0 && (
          <CallTable calls={all.page.items} names={names} testId="all-calls" onCallBack={callBack} />
        )}
        {all.page && (
          <Pager label="Call pages" tokens={all.tokens} next={all.page.continuationToken} onChange={all.setTokens} />
        )}
      </section>
    </>
  );
}
