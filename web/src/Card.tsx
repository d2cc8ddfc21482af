import type { ComponentChildren } from "preact";

/** One figure as the API answered it, with an optional note under it; `href` opens the list behind the figure. */
export function Card({
  label,
  value,
  testId,
  href,
  children,
}: {
  label: string;
  value: string;
  testId?: string;
  href?: string;
  children?: ComponentChildren;
}) {
  return (
    <div class="card">
      <div class="card-label">{label}</div>
      <div class="card-value" data-testid={testId}>
        {href ? (
          <a href={href} aria-label={`${label}: ${value}`}>
            {value}
          </a>
        ) : (
          value
        )}
      </div>
      {children && <div class="card-note">{children}</div>}
    </div>
  );
}
