import type { ComponentChildren } from "preact";
import { useEffect, useRef } from "preact/hooks";
import { errorId } from "./problem";

/**
 * A labelled control with the API's error for it right beside it: the control is described by the error so a
 * screen reader reads it on focus, and `aria-invalid` marks it.
 */
export function Field(props: {
  label: string;
  pointer: string;
  errors: string[];
  hint?: string;
  children: (control: { id: string; "aria-invalid"?: true; "aria-describedby"?: string }) => ComponentChildren;
}) {
  const id = errorId(props.pointer);
  const controlId = `input${id.slice("error".length)}`;
  const invalid = props.errors.length > 0;
  return (
    <div class={invalid ? "field invalid" : "field"} data-pointer={props.pointer}>
      <label for={controlId}>{props.label}</label>
      {props.children(invalid ? { id: controlId, "aria-invalid": true, "aria-describedby": id } : { id: controlId })}
      {props.hint && <small class="hint">{props.hint}</small>}
      {invalid && (
        <p class="field-error" id={id}>
          {props.errors.join(" ")}
        </p>
      )}
    </div>
  );
}

/**
 * The form's problem sentence and every field error in a list, announced when it appears and brought into view
 * (the save button of a long form is far below it).
 */
export function ProblemSummary({
  detail,
  errors,
  place,
}: {
  detail: string;
  errors: { pointer: string; detail: string }[];
  place?: (pointer: string) => string;
}) {
  const summary = useRef<HTMLDivElement>(null);
  useEffect(() => summary.current?.scrollIntoView({ block: "nearest" }), [detail, errors]);
  return (
    <div role="alert" class="problem" data-testid="problem" ref={summary}>
      <p class="error">{detail}</p>
      {errors.length > 0 && (
        <ul>
          {errors.map((error) => (
            <li>
              {place ? `${place(error.pointer)}: ` : ""}
              {error.detail}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
