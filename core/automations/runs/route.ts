import type { Action, AutomationRequest, Connection } from "#core/automations/definition";
import { evaluateGroup, pickWeighted, type EvaluationContext, type GroupResult } from "#core/automations/runs/evaluate";

/** The parts of a definition the engine walks (a stored automation or its version snapshot). */
export type Definition = Pick<AutomationRequest, "triggers" | "conditionGroups" | "actions" | "connections">;

export type RouteStep =
  | { kind: "ConditionGroup"; nodeId: string; passed: boolean; chosen: boolean; result: GroupResult }
  | { kind: "SkippedAction"; nodeId: string; type: string };

export interface Route {
  /** Groups evaluated (passed or not) and disabled actions passed through, in order. */
  visited: RouteStep[];
  /** The next action to execute; undefined when the run has nowhere left to go. */
  next: Action | undefined;
  /** Whether some candidate was dropped because its condition group failed. */
  conditionFailed: boolean;
}

const MAX_HOPS = 200;

/**
 * From a finished node, follows connections to the next enabled action: condition groups that fail drop out of the
 * candidates, one survivor is picked by weight, groups and disabled actions are passed through.
 */
export async function routeFrom(
  definition: Definition,
  fromNodeId: string,
  context: EvaluationContext,
  random: () => number = Math.random,
): Promise<Route> {
  const groups = new Map(definition.conditionGroups.map((group) => [group.id, group]));
  const actions = new Map(definition.actions.map((action) => [action.id, action]));
  const visited: RouteStep[] = [];
  let conditionFailed = false;
  let current = fromNodeId;
  for (let hop = 0; hop < MAX_HOPS; hop++) {
    const candidates: Connection[] = [];
    for (const connection of definition.connections.filter((entry) => entry.sourceNodeId === current)) {
      const group = groups.get(connection.targetNodeId);
      if (group) {
        const result = await evaluateGroup(group, context);
        visited.push({ kind: "ConditionGroup", nodeId: group.id, passed: result.passed, chosen: false, result });
        if (!result.passed) {
          conditionFailed = true;
          continue;
        }
      }
      if (group || actions.has(connection.targetNodeId)) candidates.push(connection);
    }
    const chosen = pickWeighted(candidates, random);
    if (!chosen) return { visited, next: undefined, conditionFailed };
    const action = actions.get(chosen.targetNodeId);
    if (action?.isEnabled) return { visited, next: action, conditionFailed };
    if (action) visited.push({ kind: "SkippedAction", nodeId: action.id, type: action.type });
    else markChosen(visited, chosen.targetNodeId);
    current = chosen.targetNodeId;
  }
  throw new Error(`The run passed ${MAX_HOPS} nodes without reaching an action.`);
}

function markChosen(visited: RouteStep[], nodeId: string): void {
  const step = visited.findLast((entry) => entry.kind === "ConditionGroup" && entry.nodeId === nodeId);
  if (step?.kind === "ConditionGroup") step.chosen = true;
}
