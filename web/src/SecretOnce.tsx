import type { ComponentChildren } from "preact";

/**
 * A secret the API shows this once (an API key, a signing secret, a source key): copy it now, then dismiss it.
 * `children` say what goes with it (the intake URL and source id of a source key).
 */
export function SecretOnce({
  title,
  note,
  secret,
  onDone,
  children,
}: {
  title: string;
  note: string;
  secret: string;
  onDone: () => void;
  children?: ComponentChildren;
}) {
  return (
    <section aria-labelledby="secret">
      <h2 id="secret">{title}</h2>
      <p>{note}</p>
      {children}
      <code data-testid="new-secret" class="secret">
        {secret}
      </code>
      <p>
        <button type="button" class="secondary" onClick={() => void navigator.clipboard?.writeText(secret)}>
          Copy
        </button>{" "}
        <button type="button" class="secondary" onClick={onDone}>
          Done
        </button>
      </p>
    </section>
  );
}
