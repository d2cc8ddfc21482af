import { useState } from "preact/hooks";

/** Delete, asked in place: "Delete" turns into "Delete for good" and "Keep it" (no window.confirm, keyboard friendly). */
export function ConfirmDelete({ onDelete }: { onDelete: () => void }) {
  const [asking, setAsking] = useState(false);
  if (!asking)
    return (
      <button type="button" class="secondary danger" onClick={() => setAsking(true)}>
        Delete
      </button>
    );
  return (
    <>
      <button type="button" class="danger" onClick={onDelete}>
        Delete for good
      </button>
      <button type="button" class="secondary" onClick={() => setAsking(false)}>
        Keep it
      </button>
    </>
  );
}
