import { toPointer, type FieldError, type PathSegments } from "#core/shared/validation";

/** The parts of an automation the graph rules read; a validated request or a stored automation both fit. */
export interface AutomationGraph {
  enabled: boolean;
  triggers: readonly { id: string; isEnabled: boolean }[];
  conditionGroups: readonly { id: string; conditions: readonly { id: string }[] }[];
  actions: readonly { id: string; type: string; isEnabled: boolean }[];
  connections: readonly { id: string; sourceNodeId: string; targetNodeId: string }[];
}

/** A graph rule broken at `path` (object keys and array indexes into the automation). */
export interface GraphProblem {
  path: PathSegments;
  detail: string;
}

interface GraphNode {
  kind: "trigger" | "conditionGroup" | "action";
  id: string;
  path: PathSegments;
  type: string | undefined;
  isEnabled: boolean;
}

/**
 * Checks the workflow graph (rules in docs/automations.md): unique node ids, connections between existing nodes,
 * no trigger as a target, nothing after Stop, a trigger when enabled, every node reachable, every loop through a Wait.
 */
export function validateAutomationGraph(automation: AutomationGraph): FieldError[] {
  return findGraphProblems(automation).map(({ path, detail }) => ({ pointer: toPointer(path), detail }));
}

/** The graph problems of an automation, with paths as segments (for valibot issues and JSON Pointers alike). */
export function findGraphProblems(automation: AutomationGraph): GraphProblem[] {
  const problems: GraphProblem[] = [];
  const { nodes, conditionGroupOf } = indexNodes(automation, problems);
  const edges = collectEdges(automation, nodes, conditionGroupOf, problems);
  problems.push(...triggerProblems(automation));
  problems.push(...unreachableNodes(nodes, edges));
  problems.push(...loopsWithoutWait(nodes, edges));
  return problems;
}

function indexNodes(automation: AutomationGraph, problems: GraphProblem[]) {
  const nodes = new Map<string, GraphNode>();
  const conditionGroupOf = new Map<string, string>();
  const seen = new Map<string, PathSegments>();
  const claim = (id: string, path: PathSegments): boolean => {
    const earlier = seen.get(id);
    if (earlier) {
      problems.push({
        path: [...path, "id"],
        detail: `Node id "${id}" is already used at ${toPointer(earlier)}; ids must be unique across triggers, condition groups, conditions and actions.`,
      });
      return false;
    }
    seen.set(id, path);
    return true;
  };
  automation.triggers.forEach((trigger, index) => {
    const path = ["triggers", index];
    if (claim(trigger.id, path))
      nodes.set(trigger.id, { kind: "trigger", id: trigger.id, path, type: undefined, isEnabled: trigger.isEnabled });
  });
  automation.conditionGroups.forEach((group, index) => {
    const path = ["conditionGroups", index];
    if (claim(group.id, path))
      nodes.set(group.id, { kind: "conditionGroup", id: group.id, path, type: undefined, isEnabled: true });
    group.conditions.forEach((condition, conditionIndex) => {
      if (claim(condition.id, [...path, "conditions", conditionIndex])) conditionGroupOf.set(condition.id, group.id);
    });
  });
  automation.actions.forEach((action, index) => {
    const path = ["actions", index];
    if (claim(action.id, path))
      nodes.set(action.id, { kind: "action", id: action.id, path, type: action.type, isEnabled: action.isEnabled });
  });
  return { nodes, conditionGroupOf };
}

interface Edge {
  index: number;
  source: string;
  target: string;
}

function collectEdges(
  automation: AutomationGraph,
  nodes: Map<string, GraphNode>,
  conditionGroupOf: Map<string, string>,
  problems: GraphProblem[],
): Edge[] {
  const edges: Edge[] = [];
  const connectionIds = new Map<string, number>();
  const pairs = new Map<string, number>();
  automation.connections.forEach((connection, index) => {
    const path = ["connections", index];
    const earlierId = connectionIds.get(connection.id);
    if (earlierId === undefined) connectionIds.set(connection.id, index);
    else
      problems.push({
        path: [...path, "id"],
        detail: `Connection id "${connection.id}" is already used at /connections/${earlierId}.`,
      });

    const endpoint = (key: "sourceNodeId" | "targetNodeId"): GraphNode | undefined => {
      const id = connection[key];
      const node = nodes.get(id);
      if (node) return node;
      const group = conditionGroupOf.get(id);
      problems.push({
        path: [...path, key],
        detail: group
          ? `"${id}" is a condition inside condition group "${group}"; connections link the group, not its conditions.`
          : `No trigger, condition group or action has id "${id}".`,
      });
      return undefined;
    };
    const source = endpoint("sourceNodeId");
    const target = endpoint("targetNodeId");
    if (!source || !target) return;
    if (target.kind === "trigger") {
      problems.push({
        path: [...path, "targetNodeId"],
        detail: `"${target.id}" is a trigger; triggers start runs and cannot be the target of a connection.`,
      });
      return;
    }
    if (source.type === "Stop") {
      problems.push({
        path: [...path, "sourceNodeId"],
        detail: `"${source.id}" is a Stop action; it ends the run and cannot have outgoing connections.`,
      });
      return;
    }
    const pair = `${source.id}\u0000${target.id}`;
    const earlierPair = pairs.get(pair);
    if (earlierPair !== undefined) {
      problems.push({
        path,
        detail: `Duplicate of /connections/${earlierPair}: both connect "${source.id}" to "${target.id}".`,
      });
      return;
    }
    pairs.set(pair, index);
    edges.push({ index, source: source.id, target: target.id });
  });
  return edges;
}

function triggerProblems(automation: AutomationGraph): GraphProblem[] {
  if (!automation.enabled || automation.triggers.some((trigger) => trigger.isEnabled)) return [];
  return [
    {
      path: ["triggers"],
      detail:
        automation.triggers.length === 0
          ? "An enabled automation needs at least one trigger."
          : "An enabled automation needs at least one enabled trigger; all of its triggers are disabled.",
    },
  ];
}

function unreachableNodes(nodes: Map<string, GraphNode>, edges: Edge[]): GraphProblem[] {
  const next = adjacency(edges);
  const reached = new Set<string>();
  const queue = [...nodes.values()].filter((node) => node.kind === "trigger").map((node) => node.id);
  for (let id = queue.shift(); id !== undefined; id = queue.shift()) {
    if (reached.has(id)) continue;
    reached.add(id);
    queue.push(...(next.get(id) ?? []).map((edge) => edge.target));
  }
  return [...nodes.values()]
    .filter((node) => node.kind !== "trigger" && !reached.has(node.id))
    .map((node) => ({
      path: node.path,
      detail:
        node.kind === "action"
          ? `Action "${node.id}" (${node.type}) is not reachable from any trigger; connect it or remove it.`
          : `Condition group "${node.id}" is not reachable from any trigger; connect it or remove it.`,
    }));
}

/** Loops that would run without pause: cycles among nodes other than enabled Wait actions. */
function loopsWithoutWait(nodes: Map<string, GraphNode>, edges: Edge[]): GraphProblem[] {
  const pauses = (id: string) => {
    const node = nodes.get(id);
    return node?.type === "Wait" && node.isEnabled;
  };
  const next = adjacency(edges.filter((edge) => !pauses(edge.source) && !pauses(edge.target)));
  const state = new Map<string, "open" | "done">();
  const problems: GraphProblem[] = [];
  const stack: string[] = [];
  const visit = (id: string) => {
    state.set(id, "open");
    stack.push(id);
    for (const edge of next.get(id) ?? []) {
      const targetState = state.get(edge.target);
      if (targetState === "open") {
        const loop = [...stack.slice(stack.indexOf(edge.target)), edge.target].map((node) => `"${node}"`).join(" → ");
        problems.push({
          path: ["connections", edge.index],
          detail: `Connections form a loop ${loop} without an enabled Wait action; add a Wait action to the loop.`,
        });
      } else if (targetState === undefined) {
        visit(edge.target);
      }
    }
    stack.pop();
    state.set(id, "done");
  };
  for (const id of nodes.keys()) if (!state.has(id)) visit(id);
  return problems;
}

function adjacency(edges: Edge[]): Map<string, Edge[]> {
  const next = new Map<string, Edge[]>();
  for (const edge of edges) next.set(edge.source, [...(next.get(edge.source) ?? []), edge]);
  return next;
}
