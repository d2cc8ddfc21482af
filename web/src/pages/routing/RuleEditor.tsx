import { useState } from "preact/hooks";
import { ProblemSummary } from "../../forms/Field";
import { errorsAt, type FormProblem } from "../../forms/problem";
import { SettingInput, type FieldSpec } from "../../forms/SettingInput";
import type { User } from "../conversations/team";
import { personName, strategies, strategyLabels, type RuleDraft } from "./document";

type Settings = Record<string, unknown>;

const listHint = "One a line; a lead matches any of them. Empty: any.";

/** Which leads a rule takes: every condition filled in must hold. Keys reach into the rule (`conditions.price.min`). */
function conditionFields(sources: { id: string; name: string }[], chosen: string[]): FieldSpec[] {
  const sourceIds = [...new Set([...sources.map((source) => source.id), ...chosen])];
  return [
    {
      key: "conditions.states",
      label: "States",
      kind: "lines",
      hint: "Two-letter codes, one a line (FL). The state of the lead's address, else of its phone's area code.",
    },
    ...(sourceIds.length > 0
      ? [
          {
            key: "conditions.sourceIds",
            label: "Sources",
            kind: "checks",
            options: sourceIds,
            labels: Object.fromEntries(sources.map((source) => [source.id, source.name])),
          } satisfies FieldSpec,
        ]
      : []),
    { key: "conditions.verticals", label: "Verticals", kind: "lines", hint: listHint },
    { key: "conditions.products", label: "Products", kind: "lines", hint: listHint },
    { key: "conditions.price.min", label: "Price at least", kind: "text", hint: "A decimal such as 25 or 12.50." },
    { key: "conditions.price.max", label: "Price at most", kind: "text" },
    { key: "conditions.utmSources", label: "UTM sources", kind: "lines", hint: listHint },
    { key: "conditions.utmMediums", label: "UTM mediums", kind: "lines" },
    { key: "conditions.utmCampaigns", label: "UTM campaigns", kind: "lines" },
  ];
}

/** Who takes the rule's leads and how they share them; a weighted rule asks each member's weight. */
function poolFields(team: readonly User[], draft: RuleDraft): FieldSpec[] {
  const pool = draft.pool ?? [];
  // Deactivated people stay offered while the rule names them, so saving does not drop them unasked.
  const options = [...new Set([...team.filter((user) => user.status === "Active").map((user) => user.id), ...pool])];
  return [
    {
      key: "pool",
      label: "Pool: who takes these leads",
      kind: "checks",
      options,
      labels: Object.fromEntries(options.map((id) => [id, personName(team, id)])),
    },
    {
      key: "strategy",
      label: "How the pool shares them",
      kind: "select",
      options: strategies,
      labels: strategyLabels,
      hint: "Longest waiting: whoever routing gave a lead longest ago. First to claim: offered to all who may take it; the first to claim it has it.",
    },
    ...(draft.strategy === "weighted"
      ? pool.map((userId): FieldSpec => ({
          key: `weights.${userId}`,
          label: `Weight of ${personName(team, userId)}`,
          kind: "number",
          hint: "Turns per cycle, 1-100; empty: 1.",
        }))
      : []),
  ];
}

/** The JSON Pointer of a rule's setting (`conditions.price.min` of rule 2 → `/rules/2/conditions/price/min`). */
const pointerOf = (index: number, key: string) => `/rules/${index}/${key.replaceAll(".", "/")}`;

/**
 * A rule's form, new or existing: what it sends is the rule at `index` of the whole document, so the API's errors
 * (`/rules/<index>/pool`) land beside the fields here. `onSave` answers the problem, or null once saved.
 */
export function RuleEditor(props: {
  rule?: RuleDraft;
  index: number;
  team: readonly User[];
  sources: { id: string; name: string }[];
  onSave: (rule: RuleDraft) => Promise<FormProblem | null>;
  onCancel: () => void;
}) {
  const [draft, setDraft] = useState<RuleDraft>(props.rule ?? { pool: [], strategy: "roundRobin" });
  const [problem, setProblem] = useState<FormProblem | null>(null);
  const [busy, setBusy] = useState(false);
  const title = props.rule ? `Edit ${props.rule.name ?? props.rule.id ?? "rule"}` : "New rule";
  const sections = [
    { title: "", fields: [{ key: "name", label: "Name", kind: "text" } satisfies FieldSpec] },
    { title: "Who takes them", fields: poolFields(props.team, draft) },
    {
      title: "Which leads",
      hint: "Every condition filled in must hold; a rule without any takes every lead.",
      fields: conditionFields(props.sources, draft.conditions?.sourceIds ?? []),
    },
  ];
  const labelOf = (pointer: string) =>
    sections.flatMap((section) => section.fields).find((spec) => pointer.startsWith(pointerOf(props.index, spec.key)))
      ?.label ?? "The rule";

  async function save() {
    setBusy(true);
    // An emptied pool leaves the key out of the draft; the API names the empty pool rather than a missing key.
    const answer = await props.onSave({ ...draft, pool: draft.pool ?? [] });
    setBusy(false);
    setProblem(answer);
  }

  return (
    <form
      class="rule-editor"
      aria-label={title}
      noValidate
      onSubmit={(event) => {
        event.preventDefault();
        void save();
      }}
    >
      <h3>{title}</h3>
      {problem && <ProblemSummary detail={problem.detail} errors={problem.errors} place={labelOf} />}
      {sections.map((section) => {
        const fields = (
          <div class="node-fields">
            {section.fields.map((spec) => {
              const pointer = pointerOf(props.index, spec.key);
              return (
                <SettingInput
                  spec={spec}
                  settings={draft as Settings}
                  pointer={pointer}
                  errors={errorsAt(problem, pointer)}
                  onChange={(next) => setDraft(next as RuleDraft)}
                />
              );
            })}
          </div>
        );
        // The name stands alone; the rule's two halves are grouped under their legends.
        return section.title ? (
          <fieldset>
            <legend>{section.title}</legend>
            {"hint" in section && <p class="hint">{section.hint}</p>}
            {fields}
          </fieldset>
        ) : (
          fields
        );
      })}
      <div class="node-actions">
        <button type="submit" disabled={busy}>
          Save rule
        </button>
        <button type="button" class="secondary" onClick={props.onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
