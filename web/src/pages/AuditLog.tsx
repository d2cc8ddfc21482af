import { api } from "../api/client";
import type { paths } from "../api/schema";
import { Pager } from "../Pager";
import { usePaged } from "../usePaged";

type AuditPage = paths["/audit-log/all/my"]["post"]["responses"]["200"]["content"]["application/json"];

const shown = (value: unknown) =>
  value === null || value === undefined ? "—" : typeof value === "string" ? value : JSON.stringify(value);

/** Who changed what, when and from where, newest first. */
export function AuditLog() {
  const log = usePaged<AuditPage>((continuationToken) =>
    api.POST("/audit-log/all/my", { body: { pageSize: 25, continuationToken } }),
  );
  return (
    <>
      <h1>Audit log</h1>
      {log.error && (
        <p role="alert" class="error">
          {log.error}
        </p>
      )}
      {log.page && (
        <section aria-labelledby="entries">
          <h2 id="entries" class="visually-hidden">
            Entries
          </h2>
          <table data-testid="audit-log" class="stacked">
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">Who</th>
                <th scope="col">What</th>
                <th scope="col">Changes</th>
                <th scope="col">From</th>
              </tr>
            </thead>
            <tbody>
              {log.page.items.map((entry) => (
                <tr>
                  <th scope="row">{new Date(entry.occurredAt).toLocaleString()}</th>
                  <td>
                    {entry.actor.displayName}
                    {entry.actor.kind === "apiKey" ? " (API key)" : ""}
                  </td>
                  <td>{entry.action}</td>
                  <td>
                    <ul class="changes">
                      {Object.entries(entry.changes).map(([field, change]) => (
                        <li>
                          <strong>{field}</strong>: {shown(change.before)} → {shown(change.after)}
                        </li>
                      ))}
                    </ul>
                  </td>
                  <td>{entry.ip ?? ""}</td>
                </tr>
              ))}
            </tbody>
          </table>
          {log.page.items.length === 0 && <p>No changes recorded yet.</p>}
          <Pager
            label="Audit log pages"
            tokens={log.tokens}
            next={log.page.continuationToken}
            onChange={log.setTokens}
          />
        </section>
      )}
    </>
  );
}
