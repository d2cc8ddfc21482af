import { useEffect, useRef } from "preact/hooks";
import uPlot from "uplot";
import "uplot/dist/uPlot.min.css";

export interface ChartSeries {
  label: string;
  values: (number | null)[];
  color: string;
}

/**
 * A uPlot line chart over labelled buckets, with its numbers in a table under it
 * (the chart's text alternative: the same values the API answered).
 */
export function Chart({ title, labels, series }: { title: string; labels: string[]; series: ChartSeries[] }) {
  const host = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!host.current) return;
    const width = Math.max(280, host.current.clientWidth);
    const plot = new uPlot(
      {
        width,
        height: 220,
        series: [
          { label: "Bucket", value: (_plot, index) => labels[index] ?? "" },
          ...series.map((one) => ({ label: one.label, stroke: one.color, width: 2, points: { show: true, size: 5 } })),
        ],
        axes: [{ values: (_plot, ticks) => ticks.map((tick) => shortLabel(labels[tick] ?? "")) }, {}],
        scales: { x: { time: false } },
      },
      [labels.map((_label, index) => index), ...series.map((one) => one.values)],
      host.current,
    );
    return () => plot.destroy();
  }, [labels, series]);
  return (
    <figure class="chart" aria-label={title}>
      <figcaption>{title}</figcaption>
      <div ref={host} class="plot" aria-hidden="true" data-chart={title} />
      <details>
        <summary>{title}: numbers</summary>
        <table>
          <thead>
            <tr>
              <th scope="col">Period</th>
              {series.map((one) => (
                <th scope="col">{one.label}</th>
              ))}
            </tr>
          </thead>
          <tbody>
            {labels.map((label, index) => (
              <tr>
                <th scope="row">{label}</th>
                {series.map((one) => (
                  <td>{one.values[index] ?? "—"}</td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </details>
    </figure>
  );
}

function shortLabel(label: string): string {
  return label.replace(/^Week of /, "").replace(/^\d{4}-/, "");
}
