import type { ComponentChildren } from "preact";

/** One figure as the API answered it, with an optional note under it. */
export function Card({
  label,
  value,
  testId,
  children,
}: {
  label: string;
  value: string;
  testId?: string;
  children?: ComponentChildren;
}) {
  return (
    <div class="card">
      <div class="card-label">{label}</div>
      <div class="card-value" data-testid={testId}>
        {value}
      </div>
      {children && <div class="card-note">{children}</div>}
    </div>
  );
}
