import { useLayoutEffect, useRef, useState } from "preact/hooks";
import type { Draft } from "./draft";
import { graphRows } from "./graph";

type Line = { x1: number; y1: number; x2: number; y2: number; loop: boolean };

/**
 * A read-only picture of the automation's graph: its steps in rows (the layout in ./graph.ts) with an arrow for each
 * link, drawn over the boxes once they are laid out (and again when the width changes), unless a row wraps. The
 * arrows are a picture only: each box also says in words where its links lead, which is what a screen reader reads.
 */
export function FlowGraph(props: { draft: Draft }) {
  const rows = graphRows(props.draft);
  const frame = useRef<HTMLDivElement>(null);
  const [lines, setLines] = useState<Line[]>([]);

  useLayoutEffect(() => {
    const container = frame.current;
    if (!container) return;
    const measure = () => {
      // A row that wraps (a phone's width) puts steps of one row under each other: arrows would cross the boxes, so
      // only the words say where the links lead there.
      const wraps = [...container.querySelectorAll(".graph-row")].some((row) => {
        const tops = new Set([...row.children].map((step) => (step as HTMLElement).offsetTop));
        return tops.size > 1;
      });
      const origin = container.getBoundingClientRect();
      const boxOf = (id: string) =>
        container.querySelector(`[data-step="${CSS.escape(id)}"]`)?.getBoundingClientRect() ?? undefined;
      const next: Line[] = [];
      for (const step of wraps ? [] : rows.flat()) {
        const from = boxOf(step.id);
        for (const link of step.next) {
          const to = boxOf(link.to);
          if (!from || !to) continue;
          // A loop goes up along the boxes' right edges, apart from the arrows going down.
          next.push(
            link.loop
              ? {
                  x1: from.right - 12 - origin.left,
                  y1: from.top - origin.top,
                  x2: to.right - 12 - origin.left,
                  y2: to.bottom - origin.top,
                  loop: true,
                }
              : {
                  x1: from.left + from.width / 2 - origin.left,
                  y1: from.bottom - origin.top,
                  x2: to.left + to.width / 2 - origin.left,
                  y2: to.top - origin.top,
                  loop: false,
                },
          );
        }
      }
      setLines(next);
    };
    measure();
    const observer = new ResizeObserver(measure);
    observer.observe(container);
    return () => observer.disconnect();
  }, [JSON.stringify(rows)]);

  return (
    <div class="graph" ref={frame} data-testid="graph">
      <svg class="graph-lines" aria-hidden="true">
        <defs>
          <marker id="graph-arrow" viewBox="0 0 8 8" refX="7" refY="4" markerWidth="8" markerHeight="8" orient="auto">
            <path d="M0,0 L8,4 L0,8 z" />
          </marker>
        </defs>
        {lines.map((line) => (
          <line {...line} class={line.loop ? "loop" : ""} marker-end="url(#graph-arrow)" />
        ))}
      </svg>
      <ol class="graph-rows">
        {rows.map((steps, index) => (
          <li>
            <span class="visually-hidden">Row {index + 1}</span>
            <ul class="graph-row">
              {steps.map((step) => (
                <li class={`graph-step ${step.kind}${step.enabled ? "" : " off"}`} data-step={step.id}>
                  <strong>{step.label}</strong>
                  {!step.enabled && <small> (off)</small>}
                  {step.next.length > 0 ? (
                    <ul class="graph-next">
                      {step.next.map((link) => (
                        <li>
                          {link.loop ? "↩ back to " : "→ "}
                          {link.toLabel}
                          {step.next.length > 1 && ` (weight ${link.weight})`}
                        </li>
                      ))}
                    </ul>
                  ) : (
                    <small class="graph-end">ends here</small>
                  )}
                </li>
              ))}
            </ul>
          </li>
        ))}
      </ol>
    </div>
  );
}
