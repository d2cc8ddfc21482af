import { useState } from "preact/hooks";

/**
 * Delete (or another final act, `label`: "Release"), asked in place: the button turns into "<label> for good" and
 * "Keep it" (no window.confirm, keyboard friendly). `subject` names what it acts on for a screen reader, where a
 * list shows one such button per item ("Revoke the invitation to rosa@example.com").
 */
export function ConfirmDelete({
  onDelete,
  label = "Delete",
  subject,
}: {
  onDelete: () => void;
  label?: string;
  subject?: string;
}) {
  const [asking, setAsking] = useState(false);
  const named = subject && <span class="visually-hidden"> {subject}</span>;
  if (!asking)
    return (
      <button type="button" class="secondary danger" onClick={() => setAsking(true)}>
        {label}
        {named}
      </button>
    );
  return (
    <>
      <button type="button" class="danger" onClick={onDelete}>
        {label}
        {named} for good
      </button>
      <button type="button" class="secondary" onClick={() => setAsking(false)}>
        Keep it
      </button>
    </>
  );
}
