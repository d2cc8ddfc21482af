/**
 * The automation as the form edits it: the request body of POST /automations and PUT /automations/{id}, loosely
 * typed (each node's settings depend on its type; the API validates them), and the edits the form makes to it.
 */
import { typeLabel, type ActionType, type ConditionType, type TriggerType } from "./fields";

export type Settings = Record<string, unknown>;
export interface TriggerNode {
  id: string;
  type: TriggerType;
  displayName?: string;
  isEnabled?: boolean;
  settings?: Settings;
}
export interface ConditionNode {
  id: string;
  type: ConditionType;
  operator: string;
  isEnabled?: boolean;
  settings?: Settings;
}
export interface GroupNode {
  id: string;
  mode?: string;
  conditions: ConditionNode[];
}
export interface ActionNode {
  id: string;
  type: ActionType;
  order?: number;
  isEnabled?: boolean;
  settings?: Settings;
}
export interface Connection {
  id: string;
  sourceNodeId: string;
  targetNodeId: string;
  weight?: number;
}
export interface Draft {
  name: string;
  description?: string | null;
  enabled: boolean;
  scope?: string;
  visibility?: string;
  triggers: TriggerNode[];
  conditionGroups: GroupNode[];
  actions: ActionNode[];
  connections: Connection[];
  version?: number;
}

/** A new automation: a new lead gets a text. */
export function newDraft(): Draft {
  return {
    name: "",
    enabled: false,
    triggers: [{ id: "trigger-1", type: "LeadCreated", settings: {} }],
    conditionGroups: [],
    actions: [{ id: "action-1", type: "SendSms", settings: { body: "" } }],
    connections: [{ id: "c1", sourceNodeId: "trigger-1", targetNodeId: "action-1" }],
  };
}

/** The editable part of an automation the API answered (read-only fields such as createdAt stay behind). */
export function draftOf(automation: Draft): Draft {
  const { name, description, enabled, scope, visibility, triggers, conditionGroups, actions, connections, version } =
    automation;
  return { name, description, enabled, scope, visibility, triggers, conditionGroups, actions, connections, version };
}

/** Every node id in use, conditions included: ids are unique across the whole automation. */
function nodeIds(draft: Draft): Set<string> {
  return new Set([
    ...draft.triggers.map((node) => node.id),
    ...draft.conditionGroups.flatMap((group) => [group.id, ...group.conditions.map((condition) => condition.id)]),
    ...draft.actions.map((node) => node.id),
  ]);
}

/** `prefix-N`, the first N not taken. */
export function freeId(draft: Draft, prefix: string): string {
  const taken = nodeIds(draft);
  let n = 1;
  while (taken.has(`${prefix}-${n}`)) n++;
  return `${prefix}-${n}`;
}

/** The straight flow: every trigger into the first condition group, each group into the next, then the actions in order. */
export function inOrder(draft: Draft): Connection[] {
  const steps = [...draft.conditionGroups.map((group) => group.id), ...draft.actions.map((action) => action.id)];
  const pairs: [string, string][] = [];
  if (steps[0]) for (const trigger of draft.triggers) pairs.push([trigger.id, steps[0]]);
  for (let index = 1; index < steps.length; index++) {
    const previous = draft.actions.find((action) => action.id === steps[index - 1]);
    if (previous?.type !== "Stop") pairs.push([steps[index - 1]!, steps[index]!]);
  }
  return pairs.map(([sourceNodeId, targetNodeId], index) => ({ id: `c${index + 1}`, sourceNodeId, targetNodeId }));
}

function sameFlow(left: Connection[], right: Connection[]): boolean {
  const key = (connection: Connection) =>
    `${connection.sourceNodeId}>${connection.targetNodeId}>${connection.weight ?? 1}`;
  return left.length === right.length && left.every((connection, index) => key(connection) === key(right[index]!));
}

/**
 * Applies a change to the nodes; while the flow is still the straight one the form drew, it is redrawn for the new
 * nodes (a flow someone edited by hand is kept, minus connections to removed nodes).
 */
export function changeNodes(draft: Draft, change: (draft: Draft) => Draft): Draft {
  const next = change(draft);
  if (sameFlow(draft.connections, inOrder(draft))) return { ...next, connections: inOrder(next) };
  const ids = nodeIds(next);
  return {
    ...next,
    connections: next.connections.filter(
      (connection) => ids.has(connection.sourceNodeId) && ids.has(connection.targetNodeId),
    ),
  };
}

/** A node's name in lists and the flow: "Action 2: Send a text". */
export function nodeLabel(draft: Draft, id: string): string {
  const trigger = draft.triggers.findIndex((node) => node.id === id);
  if (trigger >= 0) return `Trigger ${trigger + 1}: ${typeLabel(draft.triggers[trigger]!.type)}`;
  const group = draft.conditionGroups.findIndex((node) => node.id === id);
  if (group >= 0) return `Condition group ${group + 1}`;
  const action = draft.actions.findIndex((node) => node.id === id);
  if (action >= 0) return `Action ${action + 1}: ${typeLabel(draft.actions[action]!.type)}`;
  return id;
}

/** Where an error's JSON Pointer is, in the form's words: "/actions/0/settings/body" → "Action 1: Send a text, body". */
export function placeOf(draft: Draft, pointer: string): string {
  const [, list, index, ...rest] = pointer.split("/");
  const at = Number(index);
  const node =
    list === "triggers"
      ? draft.triggers[at]?.id
      : list === "conditionGroups"
        ? draft.conditionGroups[at]?.id
        : list === "actions"
          ? draft.actions[at]?.id
          : undefined;
  if (node)
    return [nodeLabel(draft, node), rest.filter((part) => part !== "settings").join(" ")].filter(Boolean).join(", ");
  if (list === "connections") return `Connection ${at + 1}`;
  return list ?? "The automation";
}
