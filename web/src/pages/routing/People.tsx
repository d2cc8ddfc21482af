import { useEffect, useState } from "preact/hooks";
import { api, problemText } from "../../api/client";
import { ProblemSummary } from "../../forms/Field";
import { errorsAt, type FormProblem } from "../../forms/problem";
import { SettingInput, type FieldSpec } from "../../forms/SettingInput";
import type { User } from "../conversations/team";
import { hoursInWords, limitsInWords, ruleName, type AgentLimits, type Rule } from "./document";

type Settings = Record<string, unknown>;

/** What routing holds a person to (`agents[]` of the routing settings); empty: no limit. */
const limitFields: FieldSpec[] = [
  {
    key: "licensedStates",
    label: "Licensed states",
    kind: "lines",
    hint: "Two-letter codes, one a line: only leads with an address in them. Empty: any lead.",
  },
  { key: "dailyCap", label: "Leads a day at most", kind: "number", hint: "In the organization's time zone." },
  { key: "hourlyCap", label: "Leads an hour at most", kind: "number" },
  {
    key: "openCap",
    label: "Open leads at most",
    kind: "number",
    hint: "A lead is open until its first reply or call, or until it is reassigned.",
  },
];

/**
 * Whether each person is away, read one by one (`GET /routing/agents/{userId}/away`: the API has no list of them);
 * `set` marks one away or back. A person whose mark could not be read is left out.
 */
function useAway(userIds: string[]) {
  const [away, setAway] = useState<Record<string, boolean>>({});
  useEffect(() => {
    for (const userId of userIds)
      void api
        .GET("/routing/agents/{userId}/away", { params: { path: { userId } } })
        .then(({ data }) => data && setAway((known) => ({ ...known, [userId]: data.away })));
  }, [userIds.join(",")]);
  async function set(userId: string, next: boolean): Promise<string | null> {
    const { data, error } = await api.PUT("/routing/agents/{userId}/away", {
      params: { path: { userId } },
      body: { away: next },
    });
    if (!data) return problemText(error);
    setAway((known) => ({ ...known, [userId]: data.away }));
    return null;
  }
  return { away, set };
}

/**
 * The active people and how routing treats each: away or available, their working hours (their profile), the rules
 * whose pools hold them, and their licences and caps. Owners and admins change the licences and caps (saved with
 * the rest of the routing settings) and mark anyone away or back.
 */
export function People(props: {
  team: readonly User[];
  agents: readonly AgentLimits[];
  rules: readonly Rule[];
  canEdit: boolean;
  onSaveLimits: (userId: string, limits: Partial<AgentLimits>) => Promise<FormProblem | null>;
}) {
  const people = props.team.filter((user) => user.status === "Active");
  const { away, set } = useAway(people.map((user) => user.id));
  const [editing, setEditing] = useState<string | null>(null);
  /** Whose limits were just saved: said beside them, where the form was. */
  const [savedFor, setSavedFor] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  return (
    <section aria-labelledby="people">
      <h2 id="people">People</h2>
      <p class="hint">
        Routing gives a lead only to someone active, not away, within their working hours (set on their profile),
        licensed for the lead's state and under their caps.
      </p>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      <ul class="people" data-testid="people">
        {people.map((user) => {
          const limits = props.agents.find((agent) => agent.userId === user.id);
          const inRules = props.rules.filter((rule) => rule.pool.includes(user.id)).map(ruleName);
          const isAway = away[user.id];
          return (
            <li data-user-id={user.id}>
              <div class="person-head">
                <strong>{user.name}</strong>
                <span class="badge">{user.role}</span>
                <span data-testid="availability">
                  {isAway === undefined ? "…" : isAway ? "Away" : "Available"} · {hoursInWords(user)}
                </span>
              </div>
              <p data-testid="limits">{limitsInWords(limits)}</p>
              <p class="hint">{inRules.length > 0 ? `In ${inRules.join(", ")}` : "In no rule's pool"}</p>
              {editing === user.id ? (
                <LimitsForm
                  name={user.name}
                  index={limits ? props.agents.indexOf(limits) : props.agents.length}
                  limits={limits}
                  onSave={async (next) => {
                    const problem = await props.onSaveLimits(user.id, next);
                    if (!problem) {
                      setEditing(null);
                      setSavedFor(user.id);
                    }
                    return problem;
                  }}
                  onCancel={() => setEditing(null)}
                />
              ) : (
                props.canEdit && (
                  <div class="node-actions">
                    <button
                      type="button"
                      class="secondary"
                      onClick={() => {
                        setSavedFor(null);
                        setEditing(user.id);
                      }}
                    >
                      Edit limits<span class="visually-hidden"> of {user.name}</span>
                    </button>
                    {isAway !== undefined && (
                      <button type="button" class="secondary" onClick={() => void set(user.id, !isAway).then(setError)}>
                        {isAway ? "Mark back" : "Mark away"}
                        <span class="visually-hidden"> {user.name}</span>
                      </button>
                    )}
                    {savedFor === user.id && (
                      <span role="status" data-testid="limits-saved">
                        Limits saved.
                      </span>
                    )}
                  </div>
                )
              )}
            </li>
          );
        })}
      </ul>
    </section>
  );
}

/** One person's licences and caps; the API's errors are at `/agents/<index>/…` of the document it saves. */
function LimitsForm(props: {
  name: string;
  index: number;
  limits: AgentLimits | undefined;
  onSave: (limits: Partial<AgentLimits>) => Promise<FormProblem | null>;
  onCancel: () => void;
}) {
  const { userId: _userId, ...initial } = props.limits ?? { userId: "" };
  const [draft, setDraft] = useState<Settings>(initial);
  const [problem, setProblem] = useState<FormProblem | null>(null);
  return (
    <form
      aria-label={`Limits of ${props.name}`}
      noValidate
      onSubmit={(event) => {
        event.preventDefault();
        void props.onSave(draft as Partial<AgentLimits>).then(setProblem);
      }}
    >
      {problem && <ProblemSummary detail={problem.detail} errors={problem.errors} />}
      <div class="node-fields">
        {limitFields.map((spec) => {
          const pointer = `/agents/${props.index}/${spec.key}`;
          return (
            <SettingInput
              spec={spec}
              settings={draft}
              pointer={pointer}
              errors={errorsAt(problem, pointer)}
              onChange={setDraft}
            />
          );
        })}
      </div>
      <div class="node-actions">
        <button type="submit">
          Save limits<span class="visually-hidden"> of {props.name}</span>
        </button>
        <button type="button" class="secondary" onClick={props.onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
