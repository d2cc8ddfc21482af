import { useState } from "preact/hooks";
import { api, problemText } from "../api/client";
import type { paths } from "../api/schema";
import { InlineForm, TextField } from "../forms/Field";
import { formProblem, type FormProblem } from "../forms/problem";
import { Pager } from "../Pager";
import { usePaged } from "../usePaged";

type SuppressionPage = paths["/suppressions/all/my"]["post"]["responses"]["200"]["content"]["application/json"];

const reasons: Record<string, string> = {
  Manual: "Added by hand",
  OptOutKeyword: "The contact texted STOP",
  ProviderOptOut: "The carrier reported an opt-out",
};

/** Numbers never texted again: add one with a note, remove one added by hand (an opt-out is lifted only by the contact). */
export function Suppressions() {
  const list = usePaged<SuppressionPage>((continuationToken) =>
    api.POST("/suppressions/all/my", { body: { pageSize: 50, continuationToken } }),
  );
  const [phoneNumber, setPhoneNumber] = useState("");
  const [note, setNote] = useState("");
  const [problem, setProblem] = useState<FormProblem | null>(null);
  const [removeError, setRemoveError] = useState<string | null>(null);

  async function add() {
    const { data, error } = await api.POST("/suppressions", {
      body: { phoneNumber: phoneNumber.trim(), ...(note.trim() ? { note: note.trim() } : {}) },
    });
    if (!data) return setProblem(formProblem(error));
    setProblem(null);
    setPhoneNumber("");
    setNote("");
    list.reload();
  }

  async function remove(phone: string) {
    const { error } = await api.DELETE("/suppressions/{phone}", { params: { path: { phone } } });
    setRemoveError(error ? problemText(error) : null);
    list.reload();
  }

  return (
    <>
      <h1>Suppressions</h1>
      <section aria-labelledby="add-suppression">
        <h2 id="add-suppression">Add a number</h2>
        <InlineForm problem={problem} onSubmit={() => void add()}>
          <TextField
            label="Phone number"
            pointer="/phoneNumber"
            problem={problem}
            type="tel"
            autocomplete="off"
            placeholder="+12125550123"
            value={phoneNumber}
            onValue={setPhoneNumber}
          />
          <TextField label="Note" pointer="/note" problem={problem} value={note} onValue={setNote} />
          <button type="submit">Add</button>
        </InlineForm>
      </section>
      {(removeError ?? list.error) && (
        <p role="alert" class="error">
          {removeError ?? list.error}
        </p>
      )}
      {list.page && list.page.items.length === 0 && <p>No number is suppressed.</p>}
      {list.page && list.page.items.length > 0 && (
        <table class="list stacked" data-testid="suppressions">
          <thead>
            <tr>
              <th scope="col">Number</th>
              <th scope="col">Why</th>
              <th scope="col">Note</th>
              <th scope="col">Since</th>
              <th scope="col">
                <span class="visually-hidden">Remove</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {list.page.items.map((entry) => (
              <tr data-phone={entry.phoneNumber}>
                <th scope="row">{entry.phoneNumber}</th>
                <td>{reasons[entry.reason] ?? entry.reason}</td>
                <td>{entry.note ?? ""}</td>
                <td>{new Date(entry.createdAt).toLocaleString()}</td>
                <td>
                  {entry.reason === "Manual" ? (
                    <button type="button" class="secondary" onClick={() => void remove(entry.phoneNumber)}>
                      Remove<span class="visually-hidden"> {entry.phoneNumber}</span>
                    </button>
                  ) : (
                    <small class="hint">Lifted when the contact texts START</small>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {list.page && (
        <Pager
          label="Suppression pages"
          tokens={list.tokens}
          next={list.page.continuationToken}
          onChange={list.setTokens}
        />
      )}
    </>
  );
}
