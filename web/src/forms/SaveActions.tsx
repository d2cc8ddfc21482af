/**
 * A form's submit button with its "Saved." beside it: the confirmation shows where the save was made, in sight on a
 * phone (one notice at the top of a long page was not). `testId` tells apart two forms of one page.
 */
export function SaveActions(props: { label: string; saved: boolean; testId?: string }) {
  return (
    <div class="node-actions">
      <button type="submit">{props.label}</button>
      {props.saved && (
        <span role="status" data-testid={props.testId ?? "saved"}>
          Saved.
        </span>
      )}
    </div>
  );
}
