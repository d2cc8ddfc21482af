import { useEffect, useState } from "preact/hooks";
import { api, problemText } from "../api/client";
import type { paths } from "../api/schema";
import { fullName } from "../names";
import { typeLabel } from "./automations/fields";

type Automation = paths["/automations/{id}"]["get"]["responses"]["200"]["content"]["application/json"];
type AutomationRequest = NonNullable<paths["/automations/{id}"]["put"]["requestBody"]>["content"]["application/json"];
type Run =
  paths["/automations/{id}/runs/all/my"]["post"]["responses"]["200"]["content"]["application/json"]["items"][number];

/** Automations with their last run, switched on and off with PUT /automations/{id} (the version guards concurrent edits). */
export function Automations() {
  const [automations, setAutomations] = useState<Automation[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [reload, setReload] = useState(0);
  useEffect(() => {
    void api
      .POST("/automations/all/my", { body: { pageSize: 100 } })
      .then(({ data, error: problem }) => (data ? setAutomations(data.items) : setError(problemText(problem))));
  }, [reload]);

  async function toggle(automation: Automation) {
    const enabled = !automation.enabled;
    // Shown at once: the checkbox is controlled, and a render before the answer put it back as it was until the list
    // reloaded. The reload below shows what the API kept (the previous state again when it refused).
    setAutomations((shown) => shown && shown.map((item) => (item.id === automation.id ? { ...item, enabled } : item)));
    const { error: problem } = await api.PUT("/automations/{id}", {
      params: { path: { id: automation.id } },
      // The whole definition goes back with its version (a concurrent edit answers 409). The read schema types
      // scope and visibility as plain strings while the write schema has their enums (issue 14 aligns them).
      body: {
        ...automation,
        enabled,
        scope: automation.scope as AutomationRequest["scope"],
        visibility: automation.visibility as AutomationRequest["visibility"],
      },
    });
    setError(problem ? problemText(problem) : null);
    setReload((count) => count + 1);
  }

  return (
    <>
      <div class="toolbar">
        <h1>Automations</h1>
        <a class="button" href="#/automations/new">
          New automation
        </a>
      </div>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      {automations && automations.length === 0 && <p>No automations yet.</p>}
      {automations && automations.length > 0 && (
        <table class="list stacked" data-testid="automations">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Enabled</th>
              <th scope="col">Last run</th>
              <th scope="col">
                <span class="visually-hidden">Change</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {automations.map((automation) => (
              <tr>
                <th scope="row">
                  <a href={`#/automations/${encodeURIComponent(automation.id)}`} title="Run history">
                    {automation.name}
                  </a>
                </th>
                <td>
                  <label>
                    <input type="checkbox" checked={automation.enabled} onChange={() => void toggle(automation)} />
                    <span class="visually-hidden">Enable {automation.name}</span>
                    {automation.enabled ? "On" : "Off"}
                  </label>
                </td>
                <td>
                  {automation.lastRunStatus ?? "—"}{" "}
                  {automation.lastRunAt ? new Date(automation.lastRunAt).toLocaleString() : ""}
                </td>
                <td>
                  <a class="button secondary" href={`#/automations/${encodeURIComponent(automation.id)}/edit`}>
                    Edit<span class="visually-hidden"> {automation.name}</span>
                  </a>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </>
  );
}

/** A lead's name for a run row: fetched once per lead shown. */
function useLeadNames(leadIds: string[]): Record<string, string> {
  const [names, setNames] = useState<Record<string, string>>({});
  useEffect(() => {
    const missing = [...new Set(leadIds)].filter((leadId) => !(leadId in names));
    for (const leadId of missing)
      void api.GET("/leads/{id}", { params: { path: { id: leadId } } }).then(({ data }) =>
        setNames((known) => ({
          ...known,
          [leadId]: data ? fullName(data.contact) || data.contact.phone?.number || leadId : leadId,
        })),
      );
  }, [leadIds.join(",")]);
  return names;
}

/** What a step put out or failed with, as a line a person can read. */
function stepDetail(step: Run["steps"][number]): string {
  if (step.error) return step.error;
  if (!step.output) return "";
  return Object.entries(step.output)
    .map(([key, value]) => `${key}: ${typeof value === "object" ? JSON.stringify(value) : String(value)}`)
    .join(", ");
}

/** One automation's run history, newest first: the lead by name, each step's outcome, and a retry for failed runs. */
export function AutomationRuns({ id }: { id: string }) {
  const [runs, setRuns] = useState<Run[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [reload, setReload] = useState(0);
  useEffect(() => {
    void api
      .POST("/automations/{id}/runs/all/my", {
        params: { path: { id } },
        body: { pageSize: 50, orderBy: [{ field: "createdAt", direction: "desc" }] },
      })
      .then(({ data, error: problem }) => (data ? setRuns(data.items) : setError(problemText(problem))));
  }, [id, reload]);
  const names = useLeadNames((runs ?? []).flatMap((run) => (run.leadId ? [run.leadId] : [])));

  async function retry(run: Run) {
    const { error: problem } = await api.POST("/automations/{id}/runs/{runId}/retry", {
      params: { path: { id, runId: run.id }, header: { "Idempotency-Key": crypto.randomUUID() } },
    });
    setError(problem ? problemText(problem) : null);
    setReload((count) => count + 1);
  }

  return (
    <>
      <p>
        <a href="#/automations">← Automations</a> ·{" "}
        <a href={`#/automations/${encodeURIComponent(id)}/edit`}>Edit this automation</a>
      </p>
      <h1>Run history</h1>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      {runs && runs.length === 0 && <p>No runs yet.</p>}
      {runs && runs.length > 0 && (
        <ul class="runs" data-testid="runs">
          {runs.map((run) => (
            <li class={run.status === "Failed" ? "failed" : ""} data-run-id={run.id}>
              <div class="run-head">
                <strong data-testid="run-status">{run.status}</strong>
                <time dateTime={run.createdAt}>{new Date(run.createdAt).toLocaleString()}</time>
                <span>
                  {run.leadId ? (
                    <a href={`#/leads/${encodeURIComponent(run.leadId)}`} data-testid="run-lead">
                      {names[run.leadId] ?? "…"}
                    </a>
                  ) : (
                    "No lead"
                  )}
                </span>
                {run.status === "Failed" && (
                  <button type="button" onClick={() => void retry(run)}>
                    Retry<span class="visually-hidden"> the run of {new Date(run.createdAt).toLocaleString()}</span>
                  </button>
                )}
              </div>
              {run.error && <p class="error">{run.error}</p>}
              <details>
                <summary>
                  {run.steps.length} step{run.steps.length === 1 ? "" : "s"}
                  {run.retryCount > 0 ? `, retried ${run.retryCount}×` : ""}
                </summary>
                <ol class="steps" data-testid="steps">
                  {run.steps.map((step) => (
                    <li class={step.status === "Failed" ? "failed" : ""}>
                      <strong>{typeLabel(step.type)}</strong> ({step.nodeId}): {step.status}
                      {step.attempts > 1 ? `, ${step.attempts} attempts` : ""}
                      {step.durationMs !== null ? `, ${step.durationMs} ms` : ""}
                      {stepDetail(step) && <div class="step-detail">{stepDetail(step)}</div>}
                    </li>
                  ))}
                </ol>
              </details>
            </li>
          ))}
        </ul>
      )}
    </>
  );
}
