import type { ComponentChildren } from "preact";
import { useEffect, useRef } from "preact/hooks";
import { errorId, errorsAt, type FormProblem } from "./problem";

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

/**
 * A one-line form the API validates: the problem's sentence above it when no field is named (a field's error shows
 * beside that field), and no browser validation in the way of the API's words.
 */
export function InlineForm({
  problem,
  onSubmit,
  children,
}: {
  problem: FormProblem | null;
  onSubmit: () => void;
  children: ComponentChildren;
}) {
  return (
    <>
      {problem && problem.errors.length === 0 && <ProblemSummary detail={problem.detail} errors={[]} />}
      <form
        class="inline-form"
        noValidate
        onSubmit={(event) => {
          event.preventDefault();
          onSubmit();
        }}
      >
        {children}
      </form>
    </>
  );
}

/** A labelled text input for one request field, its API error beside it. */
export function TextField({
  label,
  pointer,
  problem,
  value,
  onValue,
  ...input
}: {
  label: string;
  pointer: string;
  problem: FormProblem | null;
  value: string;
  onValue: (value: string) => void;
  type?: "text" | "tel" | "url";
  placeholder?: string;
  inputMode?: "numeric" | "decimal" | "tel" | "text";
  autocomplete?: string;
}) {
  return (
    <Field label={label} pointer={pointer} errors={errorsAt(problem, pointer)}>
      {(control) => (
        <input
          {...control}
          {...(input as Record<string, string>)}
          value={value}
          onInput={(event) => onValue(event.currentTarget.value)}
        />
      )}
    </Field>
  );
}
