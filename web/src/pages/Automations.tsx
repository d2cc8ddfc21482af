import { useEffect, useState } from "preact/hooks";
import { api, problemText } from "../api/client";
import type { paths } from "../api/schema";

type Automation = paths["/automations/{id}"]["get"]["responses"]["200"]["content"]["application/json"];
type AutomationRequest = NonNullable<paths["/automations/{id}"]["put"]["requestBody"]>["content"]["application/json"];
type Run = paths["/automations/{id}/runs/all/my"]["post"]["responses"]["200"]["content"]["application/json"]["items"][number];

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
    const { error: problem } = await api.PUT("/automations/{id}", {
      params: { path: { id: automation.id } },
      // The whole definition goes back with its version (a concurrent edit answers 409). The read schema types
      // scope and visibility as plain strings while the write schema has their enums (issue 14 aligns them).
      body: {
        ...automation,
        enabled: !automation.enabled,
        scope: automation.scope as AutomationRequest["scope"],
        visibility: automation.visibility as AutomationRequest["visibility"],
      },
    });
    setError(problem ? problemText(problem) : null);
    setReload((count) => count + 1);
  }

  return (
    <>
      <h1>Automations</h1>
      {error && <p role="alert" class="error">{error}</p>}
      {automations && automations.length === 0 && <p>No automations yet.</p>}
      {automations && automations.length > 0 && (
        <table class="list" data-testid="automations">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Enabled</th>
              <th scope="col">Last run</th>
            </tr>
          </thead>
          <tbody>
            {automations.map((automation) => (
              <tr>
                <th scope="row">
                  <a href={`#/automations/${encodeURIComponent(automation.id)}`}>{automation.name}</a>
                </th>
                <td>
                  <label>
                    <input type="checkbox" checked={automation.enabled} onChange={() => void toggle(automation)} />
                    <span class="visually-hidden">Enable {automation.name}</span>
                    {automation.enabled ? "On" : "Off"}
                  </label>
                </td>
                <td>
                  {automation.lastRunStatus ?? "—"} {automation.lastRunAt ? new Date(automation.lastRunAt).toLocaleString() : ""}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </>
  );
}

/** One automation's run history, failures with their error first-class. */
export function AutomationRuns({ id }: { id: string }) {
  const [runs, setRuns] = useState<Run[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    void api
      .POST("/automations/{id}/runs/all/my", { params: { path: { id } }, body: { pageSize: 50, orderBy: [{ field: "createdAt", direction: "desc" }] } })
      .then(({ data, error: problem }) => (data ? setRuns(data.items) : setError(problemText(problem))));
  }, [id]);
  return (
    <>
      <p>
        <a href="#/automations">← Automations</a>
      </p>
      <h1>Run history</h1>
      {error && <p role="alert" class="error">{error}</p>}
      {runs && (
        <table class="list" data-testid="runs">
          <thead>
            <tr>
              <th scope="col">Started</th>
              <th scope="col">Status</th>
              <th scope="col">Lead</th>
              <th scope="col">Error</th>
            </tr>
          </thead>
          <tbody>
            {runs.map((run) => (
              <tr class={run.status === "Failed" ? "failed" : ""}>
                <th scope="row">{new Date(run.createdAt).toLocaleString()}</th>
                <td>{run.status}</td>
                <td>{run.leadId ? <a href={`#/leads/${encodeURIComponent(run.leadId)}`}>{run.leadId}</a> : "—"}</td>
                <td>{typeof run.error === "string" ? run.error : run.error ? JSON.stringify(run.error) : ""}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </>
  );
}
