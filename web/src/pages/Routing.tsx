import type { ComponentChildren } from "preact";
import { useEffect, useState } from "preact/hooks";
import { api } from "../api/client";
import { ConfirmDelete } from "../ConfirmDelete";
import { ProblemSummary } from "../forms/Field";
import { errorsAt, formProblem, type FormProblem } from "../forms/problem";
import { SettingInput, type FieldSpec } from "../forms/SettingInput";
import { SaveActions } from "../forms/SaveActions";
import { useMe } from "./conversations/me";
import { useTeam, type User } from "./conversations/team";
import { People } from "./routing/People";
import { RuleEditor } from "./routing/RuleEditor";
import {
  catchAllAbove,
  conditionsInWords,
  documentOf,
  fallbackLabels,
  fallbacks,
  moved,
  personName,
  ruleName,
  strategyLabels,
  withLimits,
  type RoutingDocument,
  type RoutingSettings,
  type Rule,
} from "./routing/document";

type Settings = Record<string, unknown>;

/** Who sees and claims leads, and what happens to a lead nobody takes. */
const visibilityFields: FieldSpec[] = [
  {
    key: "agentsSeeAllLeads",
    label: "Agents see every lead",
    kind: "yesno",
    hint: "No: an agent sees only the leads assigned or offered to them.",
  },
  {
    key: "agentsMayClaim",
    label: "Agents may claim unassigned leads",
    kind: "yesno",
    hint: "Yes: an agent may take an unassigned lead for themselves.",
  },
  {
    key: "fallback",
    label: "A lead nobody can take",
    kind: "select",
    options: fallbacks,
    labels: fallbackLabels,
    hint: "No rule matched, or nobody in the rule's pool may take it now.",
  },
];

/** The sources by id and name, for the rules' source conditions (the first 100). */
function useSources(): { id: string; name: string }[] {
  const [sources, setSources] = useState<{ id: string; name: string }[]>([]);
  useEffect(() => {
    void api
      .POST("/sources/all/my", { body: { pageSize: 100 } })
      .then(({ data }) => setSources(data?.items.map(({ id, name }) => ({ id, name })) ?? []));
  }, []);
  return sources;
}

/**
 * Lead routing: the rules in the order they are tried (first match wins), who sees and claims leads, and how each
 * person takes leads. Every change saves the whole document with PUT /routing/settings, on top of the settings as
 * last read; owners and admins change it, agents read it (the API refuses them the PUT).
 */
export function Routing() {
  const [settings, setSettings] = useState<RoutingSettings | null>(null);
  const [loadProblem, setLoadProblem] = useState<FormProblem | null>(null);
  /** A change made from the list (a move, a deletion) that the API refused. */
  const [listProblem, setListProblem] = useState<FormProblem | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  /** The rule whose form is open: its index, or "new". */
  const [editing, setEditing] = useState<number | "new" | null>(null);
  const me = useMe();
  const team = useTeam();
  const sources = useSources();
  useEffect(() => {
    void api
      .GET("/routing/settings")
      .then(({ data, error }) => (data ? setSettings(data) : setLoadProblem(formProblem(error))));
  }, []);
  if (!settings || me === undefined || !team)
    return loadProblem ? <ProblemSummary detail={loadProblem.detail} errors={[]} /> : <p role="status">Loading…</p>;
  const current = settings;
  const canEdit = me?.role === "owner" || me?.role === "admin";
  const sourceNames = Object.fromEntries(sources.map((source) => [source.id, source.name]));

  /**
   * Saves the document as last read with `change` on top; answers the API's problem, or null once saved. `done` is
   * the rules list's notice; the other forms say "Saved." beside their own button.
   */
  async function save(change: Partial<RoutingDocument>, done: string | null = null): Promise<FormProblem | null> {
    const { data, error } = await api.PUT("/routing/settings", { body: { ...documentOf(current), ...change } });
    if (!data) return formProblem(error);
    setSettings(data);
    setNotice(done);
    return null;
  }
  /** A rule's form saves the rules; it closes once they are saved and shows the API's problem otherwise. */
  async function saveRules(rules: RoutingDocument["rules"], done: string): Promise<FormProblem | null> {
    const problem = await save({ rules }, done);
    if (!problem) setEditing(null);
    return problem;
  }
  async function changeRules(rules: RoutingDocument["rules"], done: string) {
    setListProblem(await save({ rules }, done));
  }

  return (
    <>
      <h1>Routing</h1>
      <p>
        Each new lead goes to the first rule it matches, and within that rule's pool to the next person who may take it
        now. See also <a href="#/team">Team</a> for who is in the organization.
      </p>
      {!canEdit && <p class="hint">Only owners and admins change routing.</p>}
      <section aria-labelledby="rules">
        <div class="toolbar">
          <h2 id="rules">Rules</h2>
          {canEdit && editing === null && (
            <button type="button" onClick={() => setEditing("new")}>
              New rule
            </button>
          )}
        </div>
        {notice && (
          <p role="status" data-testid="notice">
            {notice}
          </p>
        )}
        {listProblem && <ProblemSummary detail={listProblem.detail} errors={listProblem.errors} />}
        {current.rules.length === 0 && editing !== "new" && (
          <p>No rules: new leads stay unassigned and nobody is flagged.</p>
        )}
        <ol class="rules" data-testid="rules">
          {current.rules.map((rule, index) =>
            // Keyed by id: a deleted or moved rule's place must not pass its state (an open "Delete for good") on.
            editing === index ? (
              <li key={rule.id}>
                <RuleEditor
                  rule={rule}
                  index={index}
                  team={team}
                  sources={sources}
                  onSave={(next) =>
                    saveRules(
                      current.rules.map((other, at) => (at === index ? next : other)),
                      "Rule saved.",
                    )
                  }
                  onCancel={() => setEditing(null)}
                />
              </li>
            ) : (
              <RuleCard
                key={rule.id}
                rule={rule}
                index={index}
                rules={current.rules}
                team={team}
                sourceNames={sourceNames}
                actions={
                  canEdit &&
                  editing === null && (
                    <div class="node-actions">
                      <button type="button" class="secondary" onClick={() => setEditing(index)}>
                        Edit<span class="visually-hidden"> {ruleName(rule)}</span>
                      </button>
                      <button
                        type="button"
                        class="secondary"
                        disabled={index === 0}
                        onClick={() => void changeRules(moved(current.rules, index, index - 1), "Rule moved up.")}
                      >
                        Move up<span class="visually-hidden"> {ruleName(rule)}</span>
                      </button>
                      <button
                        type="button"
                        class="secondary"
                        disabled={index === current.rules.length - 1}
                        onClick={() => void changeRules(moved(current.rules, index, index + 1), "Rule moved down.")}
                      >
                        Move down<span class="visually-hidden"> {ruleName(rule)}</span>
                      </button>
                      <ConfirmDelete
                        subject={ruleName(rule)}
                        onDelete={() =>
                          void changeRules(
                            current.rules.filter((_, at) => at !== index),
                            "Rule deleted.",
                          )
                        }
                      />
                    </div>
                  )
                }
              />
            ),
          )}
        </ol>
        {editing === "new" && (
          <RuleEditor
            index={current.rules.length}
            team={team}
            sources={sources}
            onSave={(rule) => saveRules([...current.rules, rule], "Rule added.")}
            onCancel={() => setEditing(null)}
          />
        )}
      </section>
      <VisibilityForm settings={current} canEdit={canEdit} onSave={(change) => save(change)} />
      <People
        team={team}
        agents={current.agents}
        rules={current.rules}
        canEdit={canEdit}
        onSaveLimits={(userId, limits) => save({ agents: withLimits(current.agents, userId, limits) })}
      />
    </>
  );
}

/** One rule as the list shows it: what it takes, who takes it and how, and a warning when no lead can reach it. */
function RuleCard(props: {
  rule: Rule;
  index: number;
  rules: readonly Rule[];
  team: readonly User[];
  sourceNames: Record<string, string>;
  actions: ComponentChildren;
}) {
  const { rule, index } = props;
  const catchAll = catchAllAbove(props.rules, index);
  const members = rule.pool.map((userId) => {
    const name = personName(props.team, userId);
    return rule.strategy === "weighted" ? `${name} ×${rule.weights?.[userId] ?? 1}` : name;
  });
  return (
    <li data-rule-id={rule.id}>
      <h3>
        {index + 1}. {ruleName(rule)}
      </h3>
      <dl class="totals">
        <dt>Leads</dt>
        <dd data-testid="conditions">{conditionsInWords(rule.conditions, props.sourceNames).join(" · ")}</dd>
        <dt>Pool</dt>
        <dd data-testid="pool">{members.join(", ")}</dd>
        <dt>Shared</dt>
        <dd data-testid="strategy">{strategyLabels[rule.strategy]}</dd>
      </dl>
      {catchAll && <p class="attention-box">Never reached: {ruleName(catchAll)} above it takes every lead.</p>}
      {props.actions}
    </li>
  );
}

/** The visibility settings and the fallback, saved with the rules as they are. */
function VisibilityForm(props: {
  settings: RoutingSettings;
  canEdit: boolean;
  onSave: (change: Partial<RoutingDocument>) => Promise<FormProblem | null>;
}) {
  const pick = ({ agentsSeeAllLeads, agentsMayClaim, fallback }: RoutingSettings) => ({
    agentsSeeAllLeads,
    agentsMayClaim,
    fallback,
  });
  const [draft, setDraft] = useState<Settings>(pick(props.settings));
  const [problem, setProblem] = useState<FormProblem | null>(null);
  const [saved, setSaved] = useState(false);
  if (!props.canEdit)
    return (
      <section aria-labelledby="visibility">
        <h2 id="visibility">Who sees and claims leads</h2>
        <dl class="totals" data-testid="visibility">
          {visibilityFields.map((spec) => {
            const value = props.settings[spec.key as keyof RoutingSettings];
            return (
              <>
                <dt>{spec.label}</dt>
                <dd>{spec.kind === "select" ? spec.labels?.[String(value)] : value ? "Yes" : "No"}</dd>
              </>
            );
          })}
        </dl>
      </section>
    );
  return (
    <section aria-labelledby="visibility">
      <form
        noValidate
        onSubmit={(event) => {
          event.preventDefault();
          void props.onSave(draft as Partial<RoutingDocument>).then((answer) => {
            setProblem(answer);
            setSaved(!answer);
          });
        }}
      >
        <h2 id="visibility">Who sees and claims leads</h2>
        {problem && <ProblemSummary detail={problem.detail} errors={problem.errors} />}
        <div class="node-fields">
          {visibilityFields.map((spec) => (
            <SettingInput
              spec={spec}
              settings={draft}
              pointer={`/${spec.key}`}
              errors={errorsAt(problem, `/${spec.key}`)}
              onChange={(next) => {
                setSaved(false);
                setDraft(next);
              }}
            />
          ))}
        </div>
        <SaveActions label="Save settings" saved={saved} />
      </form>
    </section>
  );
}
