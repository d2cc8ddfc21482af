import { useEffect, useState } from "preact/hooks";
import { api, apiBaseUrl, problemText } from "../api/client";
import type { paths } from "../api/schema";
import { Field, InlineForm, TextField } from "../forms/Field";
import { errorsAt, formProblem, type FormProblem } from "../forms/problem";
import { money } from "../money";
import { Pager } from "../Pager";
import { SavedToggle } from "../SavedToggle";
import { SecretOnce } from "../SecretOnce";
import { usePaged } from "../usePaged";

type SourcePage = paths["/sources/all/my"]["post"]["responses"]["200"]["content"]["application/json"];
type Source = SourcePage["items"][number];
type SourceRequest = paths["/sources"]["post"]["requestBody"]["content"]["application/json"];
type SourceStats =
  paths["/analytics/my"]["get"]["responses"]["200"]["content"]["application/json"]["leadSources"][number];
type NewKey = { sourceId: string; apiKey: string; name: string };

const policies = {
  allow: "Text and call its leads at once",
  require: "Wait for a verified consent before any automated text or call",
} as const;

/** Where sellers post leads: this API's intake route. */
const intakeUrl = () => `${apiBaseUrl || location.origin}/leads/intake`;

/** The writable fields of a source as stored, for a PUT that changes one of them (PUT replaces them all). */
function requestOf(source: Source): SourceRequest {
  const { name, enabled, defaultPrice, vertical, product, allowedIps, duplicateWindowHours, consentPolicy } = source;
  return { name, enabled, defaultPrice, vertical, product, allowedIps, duplicateWindowHours, consentPolicy };
}

/** One source: on/off, its consent policy, its key (preview, rotate), its leads over the last 30 days. */
function SourceCard({
  source,
  stats,
  onKey,
  onChanged,
}: {
  source: Source;
  stats: SourceStats | undefined;
  onKey: (key: NewKey) => void;
  onChanged: () => void;
}) {
  const [error, setError] = useState<string | null>(null);
  const path = { params: { path: { id: source.id } } };
  async function save(change: Partial<SourceRequest>): Promise<boolean> {
    const { error: problem } = await api.PUT("/sources/{id}", { ...path, body: { ...requestOf(source), ...change } });
    setError(problem ? problemText(problem) : null);
    onChanged();
    return !problem;
  }
  async function rotate() {
    const { data, error: problem } = await api.POST("/sources/{id}/keys", { ...path, body: {} });
    if (data) onKey({ sourceId: data.sourceId, apiKey: data.apiKey, name: source.name });
    setError(problem ? problemText(problem) : null);
    onChanged();
  }
  return (
    <li class="card" data-source-id={source.id}>
      <h2 class="endpoint-url">{source.name}</h2>
      <p class="hint">
        Source id <code>{source.id}</code> · key {source.keyPreview}
        {source.keyRevokedAt ? " (revoked)" : ""}
        {source.previousKeyExpiresAt && Date.parse(source.previousKeyExpiresAt) > Date.now()
          ? ` · the previous key works until ${new Date(source.previousKeyExpiresAt).toLocaleString()}`
          : ""}
      </p>
      <p data-testid="stats">
        {stats
          ? `Last 30 days: ${stats.leads} leads (${stats.percent}% of all), median response ${
              stats.performance.medianResponseMinutes === null ? "—" : `${stats.performance.medianResponseMinutes} min`
            }, lead spend ${money(stats.performance.leadSpend)}`
          : "No lead in the last 30 days."}
      </p>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      <div class="node-actions">
        <SavedToggle checked={source.enabled} save={(enabled) => save({ enabled })}>
          Takes leads<span class="visually-hidden"> from {source.name}</span>
        </SavedToggle>
        <label for={`consent-${source.id}`}>
          Consent<span class="visually-hidden"> of {source.name}</span>
        </label>
        <select
          id={`consent-${source.id}`}
          value={source.consentPolicy}
          onChange={(event) => void save({ consentPolicy: event.currentTarget.value as Source["consentPolicy"] })}
        >
          {Object.entries(policies).map(([value, label]) => (
            <option value={value}>{label}</option>
          ))}
        </select>
        <button type="button" class="secondary" onClick={() => void rotate()}>
          New key<span class="visually-hidden"> for {source.name}</span>
        </button>
      </div>
    </li>
  );
}

/** Lead sources: create one (its intake URL and key are shown once), rotate its key, switch it off, its consent policy. */
export function Sources() {
  const sources = usePaged<SourcePage>((continuationToken) =>
    api.POST("/sources/all/my", { body: { pageSize: 50, continuationToken } }),
  );
  const [stats, setStats] = useState<SourceStats[]>([]);
  const [name, setName] = useState("");
  const [consentPolicy, setConsentPolicy] = useState<Source["consentPolicy"]>("allow");
  const [defaultPrice, setDefaultPrice] = useState("");
  const [problem, setProblem] = useState<FormProblem | null>(null);
  const [key, setKey] = useState<NewKey | null>(null);
  useEffect(() => {
    void api
      .GET("/analytics/my", { params: { query: { days: "30" } } })
      .then(({ data }) => data && setStats(data.leadSources));
  }, []);

  async function create() {
    const { data, error } = await api.POST("/sources", {
      body: { name: name.trim(), consentPolicy, ...(defaultPrice.trim() ? { defaultPrice: defaultPrice.trim() } : {}) },
    });
    if (!data) return setProblem(formProblem(error));
    setProblem(null);
    setKey({ sourceId: data.sourceId, apiKey: data.apiKey, name: data.source.name });
    setName("");
    setDefaultPrice("");
    sources.reload();
  }

  return (
    <>
      <h1>Sources</h1>
      {key && (
        <SecretOnce
          title={`Give ${key.name}'s seller these now`}
          note="The key is shown this once; only its hash is kept. The seller posts each lead to the intake URL with the source id and key as the X-Source-Id and X-Source-Key headers (or the sourceId and apiKey query parameters)."
          secret={key.apiKey}
          onDone={() => setKey(null)}
        >
          <dl class="totals">
            <dt>Intake URL</dt>
            <dd data-testid="intake-url">{intakeUrl()}</dd>
            <dt>Source id</dt>
            <dd data-testid="source-id">{key.sourceId}</dd>
          </dl>
        </SecretOnce>
      )}
      <section aria-labelledby="add-source">
        <h2 id="add-source">Add a source</h2>
        <InlineForm problem={problem} onSubmit={() => void create()}>
          <TextField label="Name" pointer="/name" problem={problem} value={name} onValue={setName} />
          <TextField
            label="Price per lead"
            pointer="/defaultPrice"
            problem={problem}
            inputMode="decimal"
            placeholder="12.50"
            value={defaultPrice}
            onValue={setDefaultPrice}
          />
          <Field label="Consent" pointer="/consentPolicy" errors={errorsAt(problem, "/consentPolicy")}>
            {(control) => (
              <select
                {...control}
                value={consentPolicy}
                onChange={(event) => setConsentPolicy(event.currentTarget.value as Source["consentPolicy"])}
              >
                {Object.entries(policies).map(([value, label]) => (
                  <option value={value}>{label}</option>
                ))}
              </select>
            )}
          </Field>
          <button type="submit">Add source</button>
        </InlineForm>
      </section>
      {sources.error && (
        <p role="alert" class="error">
          {sources.error}
        </p>
      )}
      {sources.page && sources.page.items.length === 0 && <p>No source yet.</p>}
      <ul class="endpoints" data-testid="sources">
        {sources.page?.items.map((source) => (
          <SourceCard
            key={`${source.id}:${source.modifiedAt ?? ""}`}
            source={source}
            stats={stats.find((item) => item.sourceId === source.id)}
            onKey={setKey}
            onChanged={sources.reload}
          />
        ))}
      </ul>
      {sources.page && (
        <Pager
          label="Source pages"
          tokens={sources.tokens}
          next={sources.page.continuationToken}
          onChange={sources.setTokens}
        />
      )}
    </>
  );
}
