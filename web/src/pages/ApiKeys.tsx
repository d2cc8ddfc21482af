import { useState } from "preact/hooks";
import { api, problemText } from "../api/client";
import type { paths } from "../api/schema";
import { Pager } from "../Pager";
import { SecretOnce } from "../SecretOnce";
import { usePaged } from "../usePaged";

type KeyPage = paths["/api-keys/all/my"]["post"]["responses"]["200"]["content"]["application/json"];
type Scope = paths["/api-keys"]["post"]["requestBody"]["content"]["application/json"]["scopes"][number];

/** Common bundles of scopes; any permission can be named through the API. */
const presets: { label: string; scopes: Scope[] }[] = [
  { label: "Lead intake and reading", scopes: ["leads:read", "leads:write"] },
  { label: "Messaging", scopes: ["leads:read", "messages:read", "messages:send"] },
  { label: "Read only", scopes: ["leads:read", "messages:read", "calls:read", "events:read", "analytics:read"] },
];

/** The organization's `sk_` keys: create (the secret is shown once), rotate with an overlap, revoke. */
export function ApiKeys() {
  const keys = usePaged<KeyPage>((continuationToken) =>
    api.POST("/api-keys/all/my", { body: { pageSize: 25, continuationToken } }),
  );
  const [secret, setSecret] = useState<{ name: string; key: string } | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [name, setName] = useState("");
  const [preset, setPreset] = useState(0);
  const shown = async (call: Promise<{ data?: { name: string; key: string }; error?: unknown }>) => {
    const { data, error: problem } = await call;
    if (!data) return setError(problemText(problem));
    setError(null);
    setSecret({ name: data.name, key: data.key });
    keys.reload();
  };
  return (
    <>
      <h1>API keys</h1>
      {(error ?? keys.error) && (
        <p role="alert" class="error">
          {error ?? keys.error}
        </p>
      )}
      {secret && (
        <SecretOnce
          title={`Copy the key “${secret.name}” now`}
          note="It is shown this once; only its hash is stored."
          secret={secret.key}
          onDone={() => setSecret(null)}
        />
      )}
      <section aria-labelledby="create">
        <h2 id="create">Create a key</h2>
        <form
          class="filters"
          onSubmit={(event) => {
            event.preventDefault();
            if (name.trim())
              void shown(api.POST("/api-keys", { body: { name: name.trim(), scopes: presets[preset]!.scopes } })).then(
                () => setName(""),
              );
          }}
        >
          <label>
            Name
            <input required value={name} onInput={(event) => setName(event.currentTarget.value)} />
          </label>
          <label>
            Scopes
            <select value={preset} onChange={(event) => setPreset(Number(event.currentTarget.value))}>
              {presets.map((option, index) => (
                <option value={index}>{option.label}</option>
              ))}
            </select>
          </label>
          <button type="submit">Create key</button>
        </form>
      </section>
      {keys.page && (
        <section aria-labelledby="keys">
          <h2 id="keys">Keys</h2>
          <table data-testid="api-keys" class="stacked">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Prefix</th>
                <th scope="col">Scopes</th>
                <th scope="col">Created by</th>
                <th scope="col">Last used</th>
                <th scope="col">Status</th>
                <th scope="col">
                  <span class="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {keys.page.items.map((key) => (
                <tr>
                  <th scope="row">{key.name}</th>
                  <td>
                    <code>{key.prefix}…</code>
                  </td>
                  <td>{key.scopes.join(", ")}</td>
                  <td>{key.createdByName}</td>
                  <td>{key.lastUsedAt ? new Date(key.lastUsedAt).toLocaleString() : "never"}</td>
                  <td>
                    {key.status}
                    {key.expiresAt && key.status !== "Revoked"
                      ? ` until ${new Date(key.expiresAt).toLocaleString()}`
                      : ""}
                  </td>
                  <td>
                    {(key.status === "Active" || key.status === "Expiring") && (
                      <>
                        <button
                          type="button"
                          class="secondary"
                          onClick={() =>
                            void shown(
                              api.POST("/api-keys/{id}/rotate", {
                                params: { path: { id: key.id } },
                                body: { overlapHours: 24 },
                              }),
                            )
                          }
                        >
                          Rotate
                        </button>{" "}
                        <button
                          type="button"
                          class="secondary"
                          onClick={() => {
                            if (!confirm(`Revoke “${key.name}”? Requests with it are refused within seconds.`)) return;
                            void api
                              .DELETE("/api-keys/{id}", { params: { path: { id: key.id } } })
                              .then(({ error: problem }) => (problem ? setError(problemText(problem)) : keys.reload()));
                          }}
                        >
                          Revoke
                        </button>
                      </>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          <p class="hint">
            Rotating keeps the old key working for 24 hours, so integrations can switch without downtime.
          </p>
          <Pager label="Key pages" tokens={keys.tokens} next={keys.page.continuationToken} onChange={keys.setTokens} />
        </section>
      )}
    </>
  );
}
