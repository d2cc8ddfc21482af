/** A secret the API shows this once (an API key, a signing secret): copy it now, then dismiss it. */
export function SecretOnce({
  title,
  note,
  secret,
  onDone,
}: {
  title: string;
  note: string;
  secret: string;
  onDone: () => void;
}) {
  return (
    <section aria-labelledby="secret">
      <h2 id="secret">{title}</h2>
      <p>{note}</p>
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
