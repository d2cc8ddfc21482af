import { useState } from "preact/hooks";

/**
 * Adds an internal note, kept for the team and never sent to the contact: `save` stores it (the conversation's or the
 * lead's notes route) and answers the API's problem in words, or null when it was stored.
 */
export function NoteBox({
  save,
  onAdded,
  label = "Internal note (only your team sees it)",
}: {
  save: (body: string) => Promise<string | null>;
  onAdded: () => void;
  label?: string;
}) {
  const [body, setBody] = useState("");
  const [answer, setAnswer] = useState<{ text: string; problem: boolean } | null>(null);
  const [busy, setBusy] = useState(false);
  return (
    <form
      class="reply note-form"
      onSubmit={async (event) => {
        event.preventDefault();
        setBusy(true);
        const problem = await save(body);
        setBusy(false);
        if (problem) return setAnswer({ text: problem, problem: true });
        setBody("");
        setAnswer({ text: "Note added. Only your team sees it.", problem: false });
        onAdded();
      }}
    >
      <label for="note">{label}</label>
      <textarea
        id="note"
        rows={3}
        maxLength={2000}
        value={body}
        onInput={(event) => setBody(event.currentTarget.value)}
      />
      <button type="submit" disabled={busy}>
        Add note
      </button>
      {answer && (
        <p
          role={answer.problem ? "alert" : "status"}
          class={answer.problem ? "error" : "hint"}
          data-testid="note-answer"
        >
          {answer.text}
        </p>
      )}
    </form>
  );
}
