import type { ComponentChildren } from "preact";
import { useEffect, useState } from "preact/hooks";
import { api } from "../../api/client";
import { ConfirmDelete } from "../../ConfirmDelete";
import { Field, ProblemSummary } from "../../forms/Field";
import { errorsAt, errorsExactly, formProblem, type FormProblem } from "../../forms/problem";
import { SettingInput, type FieldSpec, type Person } from "../../forms/SettingInput";
import { useTeam } from "../conversations/team";
import { FlowGraph } from "./FlowGraph";
import {
  actionFields,
  actionTypes,
  conditionFields,
  conditionTypes,
  operatorLabels,
  operatorsByConditionType,
  triggerFields,
  triggerTypes,
  typeLabel,
} from "./fields";
import {
  changeNodes,
  draftOf,
  freeId,
  inOrder,
  newDraft,
  nodeLabel,
  placeOf,
  type Draft,
  type Settings,
} from "./draft";

/** One trigger, condition or action: its type, its own settings, on/off and removal, with its errors beside each input. */
function NodeEditor<TType extends string>(props: {
  title: string;
  pointer: string;
  types: readonly TType[];
  type: TType;
  onType: (type: TType) => void;
  fields: FieldSpec[];
  people: Person[] | null;
  settings: Settings;
  onSettings: (settings: Settings) => void;
  isEnabled: boolean;
  onEnabled: (enabled: boolean) => void;
  onRemove: () => void;
  problem: FormProblem | null;
  children?: ComponentChildren;
}) {
  const { pointer, problem } = props;
  const own = errorsExactly(problem, [pointer, `${pointer}/settings`, `${pointer}/id`, `${pointer}/type`]);
  return (
    <fieldset class="node" data-node={pointer}>
      <legend>{props.title}</legend>
      {own.length > 0 && <p class="field-error">{own.join(" ")}</p>}
      <div class="node-fields">
        <Field label="Type" pointer={`${pointer}/type`} errors={[]}>
          {(described) => (
            <select
              {...described}
              value={props.type}
              // The menu offers only `types`.
              onChange={(event) => props.onType(event.currentTarget.value as TType)}
            >
              {props.types.map((type) => (
                <option value={type}>{typeLabel(type)}</option>
              ))}
            </select>
          )}
        </Field>
        {props.children}
        {props.fields.map((spec) => (
          <SettingInput
            spec={spec}
            settings={props.settings}
            pointer={`${pointer}/settings/${spec.key.replaceAll(".", "/")}`}
            errors={errorsAt(problem, `${pointer}/settings/${spec.key.replaceAll(".", "/")}`)}
            onChange={props.onSettings}
            people={props.people}
          />
        ))}
      </div>
      <div class="node-actions">
        <label>
          <input
            type="checkbox"
            checked={props.isEnabled}
            onChange={(event) => props.onEnabled(event.currentTarget.checked)}
          />
          On
        </label>
        <button type="button" class="secondary" onClick={props.onRemove}>
          Remove<span class="visually-hidden"> {props.title}</span>
        </button>
      </div>
    </fieldset>
  );
}

/** Replaces item `index` of a list. */
function replaced<T>(list: T[], index: number, item: T): T[] {
  return list.map((existing, at) => (at === index ? item : existing));
}

/** The fields of a type this dashboard does not know (an automation saved through a newer API): none to edit. */
const noFields: FieldSpec[] = [];

/**
 * Create or edit an automation: every trigger, condition and action the API has, the flow between them, and the
 * API's validation errors beside the input they are about (and all of them, in words, above the form).
 */
export function AutomationEditor({ id }: { id?: string }) {
  const [draft, setDraft] = useState<Draft | null>(id ? null : newDraft());
  const [problem, setProblem] = useState<FormProblem | null>(null);
  const [busy, setBusy] = useState(false);
  const team = useTeam();
  useEffect(() => {
    if (!id) return;
    void api
      .GET("/automations/{id}", { params: { path: { id } } })
      .then(({ data, error }) => (data ? setDraft(draftOf(data as unknown as Draft)) : setProblem(formProblem(error))));
  }, [id]);
  if (!draft) return problem ? <ProblemSummary detail={problem.detail} errors={[]} /> : <p role="status">Loading…</p>;

  const nodes = (change: (draft: Draft) => Draft) => setDraft(changeNodes(draft, change));
  const settingsOf = (node: { settings?: Settings }) => node.settings ?? {};

  async function save() {
    setBusy(true);
    const body = draft as never;
    const { data, error } = id
      ? await api.PUT("/automations/{id}", { params: { path: { id } }, body })
      : await api.POST("/automations", { body });
    setBusy(false);
    if (!data) return setProblem(formProblem(error));
    location.hash = "/automations";
  }

  async function remove() {
    const { error } = await api.DELETE("/automations/{id}", { params: { path: { id: id! } } });
    if (error) return setProblem(formProblem(error));
    location.hash = "/automations";
  }

  const allNodes = [...draft.triggers, ...draft.conditionGroups, ...draft.actions].map((node) => node.id);
  return (
    <form
      class="editor"
      noValidate
      onSubmit={(event) => {
        event.preventDefault();
        void save();
      }}
    >
      <p>
        <a href="#/automations">← Automations</a>
      </p>
      <h1>{id ? `Edit ${draft.name || "automation"}` : "New automation"}</h1>
      {problem && (
        <ProblemSummary detail={problem.detail} errors={problem.errors} place={(pointer) => placeOf(draft, pointer)} />
      )}
      <section aria-labelledby="basics">
        <h2 id="basics">Basics</h2>
        <div class="node-fields">
          <Field label="Name" pointer="/name" errors={errorsAt(problem, "/name")}>
            {(described) => (
              <input
                {...described}
                value={draft.name}
                onInput={(event) => setDraft({ ...draft, name: event.currentTarget.value })}
              />
            )}
          </Field>
          <Field label="Description" pointer="/description" errors={errorsAt(problem, "/description")}>
            {(described) => (
              <textarea
                {...described}
                rows={2}
                value={draft.description ?? ""}
                onInput={(event) => setDraft({ ...draft, description: event.currentTarget.value || null })}
              />
            )}
          </Field>
        </div>
        <label>
          <input
            type="checkbox"
            checked={draft.enabled}
            onChange={(event) => setDraft({ ...draft, enabled: event.currentTarget.checked })}
          />
          Enabled: runs when its triggers fire
        </label>
      </section>

      <section aria-labelledby="triggers">
        <h2 id="triggers">Triggers</h2>
        {errorsExactly(problem, ["/triggers"]).map((text) => (
          <p class="field-error">{text}</p>
        ))}
        {draft.triggers.map((trigger, index) => (
          <NodeEditor
            title={`Trigger ${index + 1}`}
            pointer={`/triggers/${index}`}
            types={triggerTypes}
            type={trigger.type}
            onType={(type) =>
              nodes((d) => ({
                ...d,
                triggers: replaced(d.triggers, index, {
                  id: trigger.id,
                  type,
                  isEnabled: trigger.isEnabled,
                  settings: {},
                }),
              }))
            }
            fields={triggerFields[trigger.type] ?? noFields}
            people={team}
            settings={settingsOf(trigger)}
            onSettings={(settings) =>
              setDraft({ ...draft, triggers: replaced(draft.triggers, index, { ...trigger, settings }) })
            }
            isEnabled={trigger.isEnabled ?? true}
            onEnabled={(isEnabled) =>
              setDraft({ ...draft, triggers: replaced(draft.triggers, index, { ...trigger, isEnabled }) })
            }
            onRemove={() => nodes((d) => ({ ...d, triggers: d.triggers.filter((_, at) => at !== index) }))}
            problem={problem}
          >
            <Field
              label="Display name"
              pointer={`/triggers/${index}/displayName`}
              errors={errorsAt(problem, `/triggers/${index}/displayName`)}
            >
              {(described) => (
                <input
                  {...described}
                  value={trigger.displayName ?? ""}
                  onInput={(event) =>
                    setDraft({
                      ...draft,
                      triggers: replaced(draft.triggers, index, {
                        ...trigger,
                        displayName: event.currentTarget.value || undefined,
                      }),
                    })
                  }
                />
              )}
            </Field>
          </NodeEditor>
        ))}
        <button
          type="button"
          class="secondary"
          onClick={() =>
            nodes((d) => ({
              ...d,
              triggers: [...d.triggers, { id: freeId(d, "trigger"), type: "LeadCreated", settings: {} }],
            }))
          }
        >
          Add trigger
        </button>
      </section>

      <section aria-labelledby="conditions">
        <h2 id="conditions">Conditions</h2>
        <p class="hint">A run goes on past a group only when its conditions hold (all of them, or any one).</p>
        {draft.conditionGroups.map((group, groupIndex) => {
          const setGroup = (next: typeof group) =>
            setDraft({ ...draft, conditionGroups: replaced(draft.conditionGroups, groupIndex, next) });
          const pointer = `/conditionGroups/${groupIndex}`;
          return (
            <fieldset class="group" data-node={pointer}>
              <legend>Condition group {groupIndex + 1}</legend>
              {errorsExactly(problem, [pointer, `${pointer}/id`, `${pointer}/conditions`]).map((text) => (
                <p class="field-error">{text}</p>
              ))}
              <Field label="Passes when" pointer={`${pointer}/mode`} errors={errorsAt(problem, `${pointer}/mode`)}>
                {(described) => (
                  <select
                    {...described}
                    value={group.mode ?? "all"}
                    onChange={(event) => setGroup({ ...group, mode: event.currentTarget.value })}
                  >
                    <option value="all">all conditions hold</option>
                    <option value="any">any condition holds</option>
                  </select>
                )}
              </Field>
              {group.conditions.map((condition, index) => {
                const setCondition = (next: typeof condition) =>
                  setGroup({ ...group, conditions: replaced(group.conditions, index, next) });
                const conditionPointer = `${pointer}/conditions/${index}`;
                const operators: readonly (keyof typeof operatorLabels)[] =
                  operatorsByConditionType[condition.type] ?? [];
                return (
                  <NodeEditor
                    title={`Condition ${groupIndex + 1}.${index + 1}`}
                    pointer={conditionPointer}
                    types={conditionTypes}
                    type={condition.type}
                    onType={(type) =>
                      setCondition({
                        id: condition.id,
                        type,
                        operator: operatorsByConditionType[type][0],
                        isEnabled: condition.isEnabled,
                        settings: {},
                      })
                    }
                    fields={conditionFields(condition.type, condition.operator)}
                    people={team}
                    settings={settingsOf(condition)}
                    onSettings={(settings) => setCondition({ ...condition, settings })}
                    isEnabled={condition.isEnabled ?? true}
                    onEnabled={(isEnabled) => setCondition({ ...condition, isEnabled })}
                    onRemove={() =>
                      setGroup({ ...group, conditions: group.conditions.filter((_, at) => at !== index) })
                    }
                    problem={problem}
                  >
                    <Field
                      label="Operator"
                      pointer={`${conditionPointer}/operator`}
                      errors={errorsAt(problem, `${conditionPointer}/operator`)}
                    >
                      {(described) => (
                        <select
                          {...described}
                          value={condition.operator}
                          onChange={(event) => setCondition({ ...condition, operator: event.currentTarget.value })}
                        >
                          {operators.map((operator) => (
                            <option value={operator}>{operatorLabels[operator]}</option>
                          ))}
                        </select>
                      )}
                    </Field>
                  </NodeEditor>
                );
              })}
              <div class="node-actions">
                <button
                  type="button"
                  class="secondary"
                  onClick={() =>
                    setGroup({
                      ...group,
                      conditions: [
                        ...group.conditions,
                        { id: freeId(draft, "condition"), type: "LeadField", operator: "Exists", settings: {} },
                      ],
                    })
                  }
                >
                  Add condition<span class="visually-hidden"> to group {groupIndex + 1}</span>
                </button>
                <button
                  type="button"
                  class="secondary"
                  onClick={() =>
                    nodes((d) => ({ ...d, conditionGroups: d.conditionGroups.filter((_, at) => at !== groupIndex) }))
                  }
                >
                  Remove group {groupIndex + 1}
                </button>
              </div>
            </fieldset>
          );
        })}
        <button
          type="button"
          class="secondary"
          onClick={() =>
            nodes((d) => {
              const groupId = freeId(d, "group");
              const conditionId = freeId(
                { ...d, conditionGroups: [...d.conditionGroups, { id: groupId, conditions: [] }] },
                "condition",
              );
              return {
                ...d,
                conditionGroups: [
                  ...d.conditionGroups,
                  {
                    id: groupId,
                    mode: "all",
                    conditions: [{ id: conditionId, type: "LeadField", operator: "Exists", settings: {} }],
                  },
                ],
              };
            })
          }
        >
          Add condition group
        </button>
      </section>

      <section aria-labelledby="actions">
        <h2 id="actions">Actions</h2>
        {draft.actions.map((action, index) => (
          <NodeEditor
            title={`Action ${index + 1}`}
            pointer={`/actions/${index}`}
            types={actionTypes}
            type={action.type}
            onType={(type) =>
              nodes((d) => ({
                ...d,
                actions: replaced(d.actions, index, { id: action.id, type, isEnabled: action.isEnabled, settings: {} }),
              }))
            }
            fields={actionFields[action.type] ?? noFields}
            people={team}
            settings={settingsOf(action)}
            onSettings={(settings) =>
              setDraft({ ...draft, actions: replaced(draft.actions, index, { ...action, settings }) })
            }
            isEnabled={action.isEnabled ?? true}
            onEnabled={(isEnabled) =>
              setDraft({ ...draft, actions: replaced(draft.actions, index, { ...action, isEnabled }) })
            }
            onRemove={() => nodes((d) => ({ ...d, actions: d.actions.filter((_, at) => at !== index) }))}
            problem={problem}
          />
        ))}
        <button
          type="button"
          class="secondary"
          onClick={() =>
            nodes((d) => ({
              ...d,
              actions: [...d.actions, { id: freeId(d, "action"), type: "SendSms", settings: { body: "" } }],
            }))
          }
        >
          Add action
        </button>
      </section>

      <section aria-labelledby="graph">
        <h2 id="graph">Graph</h2>
        <p class="hint">The steps as the form now holds them, each with where its links lead (read-only).</p>
        <FlowGraph draft={draft} />
      </section>

      <section aria-labelledby="flow">
        <h2 id="flow">Flow</h2>
        <p class="hint">Which step follows which. Several links out of one step split runs at random by weight.</p>
        <ol class="flow" data-testid="flow">
          {draft.connections.map((connection, index) => {
            const pointer = `/connections/${index}`;
            const setConnection = (next: typeof connection) =>
              setDraft({ ...draft, connections: replaced(draft.connections, index, next) });
            const pick = (label: string, key: "sourceNodeId" | "targetNodeId") => (
              <Field label={label} pointer={`${pointer}/${key}`} errors={errorsAt(problem, `${pointer}/${key}`)}>
                {(described) => (
                  <select
                    {...described}
                    value={connection[key]}
                    onChange={(event) => setConnection({ ...connection, [key]: event.currentTarget.value })}
                  >
                    {allNodes.map((node) => (
                      <option value={node}>{nodeLabel(draft, node)}</option>
                    ))}
                  </select>
                )}
              </Field>
            );
            return (
              <li data-node={pointer}>
                {errorsExactly(problem, [pointer]).map((text) => (
                  <p class="field-error">{text}</p>
                ))}
                {pick("From", "sourceNodeId")}
                {pick("To", "targetNodeId")}
                <Field label="Weight" pointer={`${pointer}/weight`} errors={errorsAt(problem, `${pointer}/weight`)}>
                  {(described) => (
                    <input
                      {...described}
                      type="number"
                      min={1}
                      max={100}
                      value={connection.weight ?? 1}
                      onInput={(event) =>
                        setConnection({ ...connection, weight: Number(event.currentTarget.value) || undefined })
                      }
                    />
                  )}
                </Field>
                <button
                  type="button"
                  class="secondary"
                  onClick={() => setDraft({ ...draft, connections: draft.connections.filter((_, at) => at !== index) })}
                >
                  Remove<span class="visually-hidden"> connection {index + 1}</span>
                </button>
              </li>
            );
          })}
        </ol>
        <div class="node-actions">
          <button
            type="button"
            class="secondary"
            disabled={allNodes.length < 2}
            onClick={() => {
              let n = draft.connections.length + 1;
              while (draft.connections.some((connection) => connection.id === `c${n}`)) n++;
              setDraft({
                ...draft,
                connections: [
                  ...draft.connections,
                  { id: `c${n}`, sourceNodeId: allNodes[0]!, targetNodeId: allNodes[allNodes.length - 1]! },
                ],
              });
            }}
          >
            Add connection
          </button>
          <button type="button" class="secondary" onClick={() => setDraft({ ...draft, connections: inOrder(draft) })}>
            Connect in order
          </button>
        </div>
      </section>

      <div class="node-actions">
        <button type="submit" disabled={busy}>
          {id ? "Save changes" : "Create automation"}
        </button>
        <a class="button secondary" href="#/automations">
          Cancel
        </a>
        {id && <ConfirmDelete onDelete={() => void remove()} />}
      </div>
    </form>
  );
}
