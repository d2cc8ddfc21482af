/**
 * Previous/Next over the API's continuation tokens: `tokens` is the stack of tokens that led to the pages
 * seen so far (null for the first); Next pushes the token the API answered, Previous pops.
 */
export function Pager(props: {
  label: string;
  tokens: (string | null)[];
  next: string | null | undefined;
  busy?: boolean;
  onChange: (tokens: (string | null)[]) => void;
}) {
  const { tokens, next, busy = false, onChange } = props;
  return (
    <nav class="pager" aria-label={props.label}>
      <button
        type="button"
        class="secondary"
        disabled={tokens.length === 1 || busy}
        onClick={() => onChange(tokens.slice(0, -1))}
      >
        Previous
      </button>
      <button type="button" disabled={!next || busy} onClick={() => next && onChange([...tokens, next])}>
        Next
      </button>
    </nav>
  );
}
