import { useEffect, useRef, useState } from "preact/hooks";
import { api, problemText } from "../api/client";
import type { paths } from "../api/schema";
import { Field, ProblemSummary } from "../forms/Field";
import { errorsAt, formProblem, type FormProblem } from "../forms/problem";
import { ConfirmDelete } from "../ConfirmDelete";
import { SavedToggle } from "../SavedToggle";
import { SecretOnce } from "../SecretOnce";
import { usePaged } from "../usePaged";

type EndpointPage = paths["/webhook-endpoints/all/my"]["post"]["responses"]["200"]["content"]["application/json"];
type Endpoint = EndpointPage["items"][number];
type Attempt =
  paths["/webhook-endpoints/{id}/attempts/all/my"]["post"]["responses"]["200"]["content"]["application/json"]["items"][number];

/** The endpoint's latest delivery attempts: when, what, the receiver's status and how long it took. */
function DeliveryLog({ endpointId, version }: { endpointId: string; version: number }) {
  const [attempts, setAttempts] = useState<Attempt[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    void api
      .POST("/webhook-endpoints/{id}/attempts/all/my", { params: { path: { id: endpointId } }, body: { pageSize: 20 } })
      .then(({ data, error: problem }) => (data ? setAttempts(data.items) : setError(problemText(problem))));
  }, [endpointId, version]);
  if (error) return <p class="error">{error}</p>;
  if (!attempts) return <p role="status">Loading…</p>;
  if (attempts.length === 0) return <p>No delivery yet.</p>;
  return (
    <table class="stacked" data-testid="attempts">
      <thead>
        <tr>
          <th scope="col">When</th>
          <th scope="col">Event</th>
          <th scope="col">Outcome</th>
          <th scope="col">Took</th>
        </tr>
      </thead>
      <tbody>
        {attempts.map((attempt) => (
          <tr class={attempt.succeeded ? "" : "failed"}>
            <th scope="row">{new Date(attempt.attemptedAt).toLocaleString()}</th>
            <td>
              {attempt.eventType} ({attempt.trigger}, attempt {attempt.attempt})
            </td>
            <td data-testid="attempt-outcome">
              {attempt.succeeded ? "Delivered" : "Failed"}
              {attempt.httpStatus !== null ? `: HTTP ${attempt.httpStatus}` : ""}
              {attempt.errorMessage ? ` (${attempt.errorMessage})` : ""}
            </td>
            <td>{attempt.latencyMs !== null ? `${attempt.latencyMs} ms` : "—"}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** A moment as a `datetime-local` input shows it: the browser's local time, to the minute. */
function localDateTime(epochMs: number): string {
  return new Date(epochMs - new Date(epochMs).getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
}

/** What a replay did, in words: how many events go out again, and where to continue when there were more. */
function replayed(count: number, continueFrom: string | null): string {
  const events = count === 1 ? "1 event is" : `${count} events are`;
  if (count === 0) return "No event of this endpoint's types since then: nothing was sent again.";
  if (continueFrom)
    return `${events} on the way again. More remain from ${new Date(continueFrom).toLocaleString()}: replay the rest.`;
  return `${events} on the way again, with the same webhook-id as before, so your receiver can drop what it already has.`;
}

/**
 * Sends the endpoint's past events again, every one since a time (POST /webhook-endpoints/{id}/replay), say after
 * the receiver was down; the answer says how many went out and offers the rest when there were more than a batch.
 */
function Replay({ endpointId, onQueued }: { endpointId: string; onQueued: () => void }) {
  const [since, setSince] = useState(() => localDateTime(Date.now() - 24 * 3600_000));
  const [answer, setAnswer] = useState<{ text: string; continueFrom: string | null } | null>(null);
  const [problem, setProblem] = useState<FormProblem | null>(null);
  const [busy, setBusy] = useState(false);
  const pointer = `/endpoints/${endpointId}/since`;

  async function replay(from: string) {
    setBusy(true);
    const { data, error } = await api.POST("/webhook-endpoints/{id}/replay", {
      params: { path: { id: endpointId } },
      body: { since: from },
    });
    setBusy(false);
    setProblem(data ? null : formProblem(error));
    setAnswer(data ? { text: replayed(data.replayed, data.continueFrom), continueFrom: data.continueFrom } : null);
    if (data && data.replayed > 0) onQueued();
  }

  // An unreadable date goes as typed, so the API's own words explain it.
  const sinceIso = () => (Number.isNaN(Date.parse(since)) ? since : new Date(since).toISOString());
  return (
    <form
      noValidate
      onSubmit={(event) => {
        event.preventDefault();
        void replay(sinceIso());
      }}
    >
      <div class="node-fields">
        <Field
          label="Events since"
          pointer={pointer}
          errors={errorsAt(problem, "/since")}
          hint="Your local time. Each event of this endpoint's types since then is sent again."
        >
          {(control) => (
            <input
              {...control}
              type="datetime-local"
              value={since}
              onInput={(event) => setSince(event.currentTarget.value)}
            />
          )}
        </Field>
      </div>
      {/* A problem that is not about the date (the endpoint is gone, no permission) shows in full. */}
      {problem && errorsAt(problem, "/since").length === 0 && (
        <ProblemSummary detail={problem.detail} errors={problem.errors} />
      )}
      <div class="node-actions">
        <button type="submit" class="secondary" disabled={busy}>
          Replay
        </button>
        {answer?.continueFrom && (
          <button type="button" class="secondary" disabled={busy} onClick={() => void replay(answer.continueFrom!)}>
            Replay the rest
          </button>
        )}
      </div>
      {answer && (
        <p role="status" data-testid="replay-answer">
          {answer.text}
        </p>
      )}
    </form>
  );
}

/** One endpoint: on/off, a test message, a new secret, a replay of past events, its delivery log, removal. */
function EndpointCard({
  endpoint,
  onSecret,
  onChanged,
}: {
  endpoint: Endpoint;
  onSecret: (secret: string) => void;
  onChanged: () => void;
}) {
  const [error, setError] = useState<string | null>(null);
  const [logVersion, setLogVersion] = useState(0);
  const path = { params: { path: { id: endpoint.id } } };
  // Queued messages are sent within moments; their attempts show in the log once sent. A pending reload is dropped
  // when the endpoint is deleted or leaves the page: the log of a deleted endpoint is a 404.
  const logReload = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const reloadLogSoon = () => {
    clearTimeout(logReload.current);
    logReload.current = setTimeout(() => setLogVersion((count) => count + 1), 1500);
  };
  useEffect(() => () => clearTimeout(logReload.current), []);
  const done = (problem: unknown) => {
    setError(problem ? problemText(problem) : null);
    onChanged();
  };
  return (
    <li class="card" data-endpoint-id={endpoint.id}>
      <h3 class="endpoint-url">{endpoint.url}</h3>
      {endpoint.description && <p>{endpoint.description}</p>}
      <p class="hint">
        {endpoint.enabledEventTypes === "all" ? "Every event" : endpoint.enabledEventTypes.join(", ")} · secret{" "}
        {endpoint.secretPreview}
        {endpoint.health.consecutiveFailures > 0 ? ` · ${endpoint.health.consecutiveFailures} failures in a row` : ""}
        {endpoint.health.disabledReason ? ` · disabled (${endpoint.health.disabledReason})` : ""}
      </p>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      <div class="node-actions">
        <SavedToggle
          checked={endpoint.enabled}
          save={async (enabled) => {
            const { url, description, enabledEventTypes } = endpoint;
            const { error: problem } = await api.PUT("/webhook-endpoints/{id}", {
              ...path,
              body: { url, description, enabledEventTypes: enabledEventTypes as never, enabled },
            });
            done(problem);
            return !problem;
          }}
        >
          Enabled<span class="visually-hidden"> {endpoint.url}</span>
        </SavedToggle>
        <button
          type="button"
          class="secondary"
          onClick={async () => {
            const { error: problem } = await api.POST("/webhook-endpoints/{id}/test", path);
            setError(problem ? problemText(problem) : null);
            reloadLogSoon();
          }}
        >
          Send test
        </button>
        <button
          type="button"
          class="secondary"
          onClick={async () => {
            const { data, error: problem } = await api.POST("/webhook-endpoints/{id}/secret", path);
            if (data) onSecret(data.secret);
            done(problem);
          }}
        >
          New secret
        </button>
        <ConfirmDelete
          onDelete={async () => {
            clearTimeout(logReload.current);
            done((await api.DELETE("/webhook-endpoints/{id}", path)).error);
          }}
        />
      </div>
      <details>
        <summary>Replay past events</summary>
        <Replay endpointId={endpoint.id} onQueued={reloadLogSoon} />
      </details>
      <details onToggle={(event) => event.currentTarget.open && setLogVersion((count) => count + 1)}>
        <summary>Delivery log</summary>
        {logVersion > 0 && <DeliveryLog endpointId={endpoint.id} version={logVersion} />}
      </details>
    </li>
  );
}

/** Webhook endpoints: subscribe a URL (the signing secret is shown once), test it, rotate its secret, read its log. */
export function Webhooks() {
  const endpoints = usePaged<EndpointPage>((continuationToken) =>
    api.POST("/webhook-endpoints/all/my", { body: { pageSize: 50, continuationToken } }),
  );
  const [catalogue, setCatalogue] = useState<string[]>([]);
  const [url, setUrl] = useState("");
  const [description, setDescription] = useState("");
  const [types, setTypes] = useState<string[]>([]);
  const [problem, setProblem] = useState<FormProblem | null>(null);
  const [secret, setSecret] = useState<string | null>(null);
  useEffect(() => {
    void api.GET("/webhook-event-types").then(({ data }) => data && setCatalogue(data.items.map((item) => item.type)));
  }, []);

  async function create() {
    const { data, error } = await api.POST("/webhook-endpoints", {
      body: {
        url: url.trim(),
        description: description.trim() || null,
        enabledEventTypes: (types.length > 0 ? types : "all") as never,
      },
    });
    if (!data) return setProblem(formProblem(error));
    setProblem(null);
    setSecret(data.secret);
    setUrl("");
    setDescription("");
    setTypes([]);
    endpoints.reload();
  }

  return (
    <>
      <h1>Webhooks</h1>
      {secret && (
        <SecretOnce
          title="Copy the signing secret now"
          note="It is shown this once; your receiver checks each delivery's signature with it."
          secret={secret}
          onDone={() => setSecret(null)}
        />
      )}
      <section aria-labelledby="add-endpoint">
        <h2 id="add-endpoint">Add an endpoint</h2>
        {problem && problem.errors.length === 0 && <ProblemSummary detail={problem.detail} errors={[]} />}
        <form
          noValidate
          onSubmit={(event) => {
            event.preventDefault();
            void create();
          }}
        >
          <div class="node-fields">
            <Field label="URL" pointer="/url" errors={errorsAt(problem, "/url")}>
              {(control) => (
                <input
                  {...control}
                  type="url"
                  placeholder="https://example.com/webhooks"
                  value={url}
                  onInput={(event) => setUrl(event.currentTarget.value)}
                />
              )}
            </Field>
            <Field label="Description" pointer="/description" errors={errorsAt(problem, "/description")}>
              {(control) => (
                <input
                  {...control}
                  value={description}
                  onInput={(event) => setDescription(event.currentTarget.value)}
                />
              )}
            </Field>
          </div>
          {/* Folded by default: the catalogue is a long list, on a phone several screens of 44 px rows. */}
          <details class="event-types" open={errorsAt(problem, "/enabledEventTypes").length > 0 || undefined}>
            <summary>
              Events to send: {types.length === 0 ? "every event, also future ones" : `${types.length} chosen`}
            </summary>
            <fieldset class="field" data-pointer="/enabledEventTypes">
              <legend class="visually-hidden">Events (none chosen: every event, also future ones)</legend>
              <div class="checks">
                {catalogue.map((type) => (
                  <label>
                    <input
                      type="checkbox"
                      checked={types.includes(type)}
                      onChange={(event) =>
                        setTypes(event.currentTarget.checked ? [...types, type] : types.filter((item) => item !== type))
                      }
                    />
                    {type}
                  </label>
                ))}
              </div>
              {errorsAt(problem, "/enabledEventTypes").length > 0 && (
                <p class="field-error">{errorsAt(problem, "/enabledEventTypes").join(" ")}</p>
              )}
            </fieldset>
          </details>
          <button type="submit">Add endpoint</button>
        </form>
      </section>
      {endpoints.error && (
        <p role="alert" class="error">
          {endpoints.error}
        </p>
      )}
      {endpoints.page && endpoints.page.items.length === 0 && <p>No endpoint yet.</p>}
      <ul class="endpoints" data-testid="endpoints">
        {endpoints.page?.items.map((endpoint) => (
          <EndpointCard key={endpoint.id} endpoint={endpoint} onSecret={setSecret} onChanged={endpoints.reload} />
        ))}
      </ul>
    </>
  );
}
