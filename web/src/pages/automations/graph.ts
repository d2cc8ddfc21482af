/**
 * The automation's graph laid out in rows for reading: the triggers first, then each step one row below the step that
 * reaches it first, breadth first (a link to the same or an earlier row is a loop, through a Wait by the API's rules).
 * Steps nothing leads to come last. Pure: the rows are the same at every width, only how they wrap differs.
 */
import { nodeLabel, type Draft } from "./draft";

export interface GraphStep {
  id: string;
  label: string;
  kind: "trigger" | "conditionGroup" | "action";
  enabled: boolean;
  /** The links out of the step, in the order the automation lists them. */
  next: { to: string; toLabel: string; weight: number; loop: boolean }[];
}

/** The steps row by row: row 0 holds the triggers. */
export function graphRows(draft: Draft): GraphStep[][] {
  const steps = new Map<string, { kind: GraphStep["kind"]; enabled: boolean }>();
  for (const trigger of draft.triggers)
    steps.set(trigger.id, { kind: "trigger", enabled: trigger.isEnabled !== false });
  for (const group of draft.conditionGroups) steps.set(group.id, { kind: "conditionGroup", enabled: true });
  for (const action of draft.actions) steps.set(action.id, { kind: "action", enabled: action.isEnabled !== false });

  const out = new Map<string, { to: string; weight: number }[]>();
  for (const connection of draft.connections) {
    if (!steps.has(connection.sourceNodeId) || !steps.has(connection.targetNodeId)) continue;
    const links = out.get(connection.sourceNodeId) ?? [];
    links.push({ to: connection.targetNodeId, weight: connection.weight ?? 1 });
    out.set(connection.sourceNodeId, links);
  }

  // Breadth first from the triggers: a step's row is one below the step that first reaches it.
  const row = new Map<string, number>();
  const queue = draft.triggers.map((trigger) => trigger.id);
  for (const id of queue) row.set(id, 0);
  for (let at = 0; at < queue.length; at++) {
    const id = queue[at]!;
    for (const link of out.get(id) ?? []) {
      if (row.has(link.to)) continue;
      row.set(link.to, row.get(id)! + 1);
      queue.push(link.to);
    }
  }
  const reached = new Set(row.keys());
  const deepest = Math.max(0, ...row.values());
  const unreached = [...steps.keys()].filter((id) => !row.has(id));
  for (const id of unreached) row.set(id, deepest + 1);

  const rows: GraphStep[][] = [];
  for (const [id, { kind, enabled }] of steps) {
    const at = row.get(id)!;
    (rows[at] ??= []).push({
      id,
      label: nodeLabel(draft, id),
      kind,
      enabled,
      next: (out.get(id) ?? []).map((link) => ({
        to: link.to,
        toLabel: nodeLabel(draft, link.to),
        weight: link.weight,
        // A loop goes back to a reached step; steps nothing reaches share the last row without forming one.
        loop: reached.has(id) && reached.has(link.to) && row.get(link.to)! <= at,
      })),
    });
  }
  return rows.filter((steps) => steps !== undefined);
}
