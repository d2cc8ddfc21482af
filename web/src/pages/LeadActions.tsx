import { useEffect, useState } from "preact/hooks";
import { api, problemText } from "../api/client";
import type { paths } from "../api/schema";
import { ConfirmDelete } from "../ConfirmDelete";
import { useMe } from "./conversations/me";
import { assigneeName, useTeam } from "./conversations/team";

type Lead = paths["/leads/{id}"]["get"]["responses"]["200"]["content"]["application/json"];

/** What an action answered: a sentence for a screen reader's status, or the API's problem in words. */
type Answer = { text: string; problem: boolean } | null;

function AnswerLine({ answer, testId }: { answer: Answer; testId: string }) {
  if (!answer) return null;
  return (
    <p role={answer.problem ? "alert" : "status"} class={answer.problem ? "error" : "hint"} data-testid={testId}>
      {answer.text}
    </p>
  );
}

/**
 * The lead page's actions besides texting: assign (PUT /leads/{id}/assignee), call (POST /calls) and opt out
 * (POST /suppressions). Each answers in place, in words.
 */
export function LeadActions({ lead, onChange }: { lead: Lead; onChange: (lead: Lead) => void }) {
  const phone = lead.contact.phone?.number ?? null;
  return (
    <section aria-labelledby="lead-actions">
      <h2 id="lead-actions">Actions</h2>
      <div class="lead-actions">
        <AssignLead lead={lead} onChange={onChange} />
        {phone && <CallLead leadId={lead.id} />}
        {phone && <OptOut leadId={lead.id} phone={phone} />}
      </div>
    </section>
  );
}

/** Who works the lead: a menu of the organization's active people, "Unassigned" to unassign; saved at once. */
function AssignLead({ lead, onChange }: { lead: Lead; onChange: (lead: Lead) => void }) {
  const team = useTeam();
  const [answer, setAnswer] = useState<Answer>(null);
  const [busy, setBusy] = useState(false);
  const active = (team ?? []).filter((user) => user.status === "Active");
  const current = lead.assignedUserId ?? null;
  return (
    <div class="assign">
      <p>
        Assignee: <strong data-testid="assignee">{assigneeName(team, current)}</strong>
      </p>
      <label>
        Assign to
        <select
          value={current ?? ""}
          disabled={busy || team === null}
          onChange={async (event) => {
            const select = event.currentTarget;
            const userId = select.value || null;
            setBusy(true);
            const { data, error } = await api.PUT("/leads/{id}/assignee", {
              params: { path: { id: lead.id } },
              body: { userId },
            });
            setBusy(false);
            if (!data) {
              // The menu goes back to what is stored: the refused choice did not happen.
              select.value = current ?? "";
              return setAnswer({ text: problemText(error), problem: true });
            }
            const now = data.assignedUserId ?? null;
            setAnswer({ text: now ? `Assigned to ${assigneeName(team, now)}.` : "Unassigned.", problem: false });
            onChange(data);
          }}
        >
          <option value="">Unassigned</option>
          {active.map((user) => (
            <option value={user.id}>{user.name}</option>
          ))}
          {current && !active.some((user) => user.id === current) && (
            <option value={current}>{assigneeName(team, current)}</option>
          )}
        </select>
      </label>
      <AnswerLine answer={answer} testId="assign-answer" />
    </div>
  );
}

/**
 * Calls the lead. With a phone on the signed-in person's profile that phone rings first and is bridged to the lead
 * (`connectTo`); without one the API's own rule applies (call forwarding's agent phone, or a direct call).
 */
function CallLead({ leadId }: { leadId: string }) {
  const me = useMe();
  const [answer, setAnswer] = useState<Answer>(null);
  const [busy, setBusy] = useState(false);
  async function call() {
    setBusy(true);
    const connectTo = me?.phone ?? undefined;
    const { data, error } = await api.POST("/calls", {
      params: { header: { "Idempotency-Key": crypto.randomUUID() } },
      body: { leadId, ...(connectTo ? { connectTo } : {}) },
    });
    setBusy(false);
    if (!data) return setAnswer({ text: problemText(error), problem: true });
    setAnswer({
      text: data.connectTo
        ? `Calling from ${data.fromPhoneNumber}: your phone (${data.connectTo}) rings first, then the lead is dialed.`
        : `Calling the lead from ${data.fromPhoneNumber}.`,
      problem: false,
    });
  }
  return (
    <div class="call-action">
      <button type="button" disabled={busy || me === undefined} onClick={() => void call()}>
        Call lead
      </button>
      <AnswerLine answer={answer} testId="call-answer" />
    </div>
  );
}

/**
 * Opts the lead out: the phone goes on the suppression list (the API records a hand-added entry as `Manual`), after
 * an in-place confirmation, since texts and calls to it stop for good until someone removes it.
 */
function OptOut({ leadId, phone }: { leadId: string; phone: string }) {
  const [suppressed, setSuppressed] = useState<boolean | null>(null);
  const [answer, setAnswer] = useState<Answer>(null);
  useEffect(() => {
    void api
      .POST("/suppressions/all/my", { body: { pageSize: 1, filters: [{ field: "phoneNumber", value: phone }] } })
      .then(({ data }) => setSuppressed(data ? data.items.length > 0 : null));
  }, [phone]);
  async function optOut() {
    const { data, error } = await api.POST("/suppressions", {
      body: { phoneNumber: phone, note: `Opted out from the lead page (lead ${leadId})` },
    });
    if (!data) return setAnswer({ text: problemText(error), problem: true });
    setSuppressed(true);
    setAnswer({ text: `${data.phoneNumber} is on the suppression list: no texts or calls go to it.`, problem: false });
  }
  return (
    <div class="opt-out">
      <p>
        Suppression:{" "}
        <strong data-testid="suppression">
          {suppressed === null ? "…" : suppressed ? "Opted out (on the suppression list)" : "Not suppressed"}
        </strong>
      </p>
      {suppressed === false && (
        <div class="confirm">
          <ConfirmDelete label="Opt out" onDelete={() => void optOut()} />
        </div>
      )}
      <AnswerLine answer={answer} testId="opt-out-answer" />
    </div>
  );
}
