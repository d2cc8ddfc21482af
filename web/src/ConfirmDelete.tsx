import { useState } from "preact/hooks";

/**
 * Delete (or another final act, `label`: "Release"), asked in place: the button turns into "<label> for good" and
 * "Keep it" (no window.confirm, keyboard friendly).
 */
export function ConfirmDelete({ onDelete, label = "Delete" }: { onDelete: () => void; label?: string }) {
  const [asking, setAsking] = useState(false);
  if (!asking)
    return (
      <button type="button" class="secondary danger" onClick={() => setAsking(true)}>
        {label}
      </button>
    );
  return (
    <>
      <button type="button" class="danger" onClick={onDelete}>
        {label} for good
      </button>
      <button type="button" class="secondary" onClick={() => setAsking(false)}>
        Keep it
      </button>
    </>
  );
}
