import { useStateResetBy } from "../useStateResetBy";
import { Field } from "./Field";

/** How a setting is asked for: the input, and how its text becomes the value the API takes. */
export type FieldKind =
  | { kind: "text" | "textarea" | "time" | "url" }
  | { kind: "number" }
  /** `unchosen` names what leaving an optional one empty means (else "Default"); `labels` words an option for a person
   * (a user's name for their id); an option without one shows as it is. */
  | {
      kind: "select";
      options: readonly string[];
      optional?: boolean;
      unchosen?: string;
      labels?: Readonly<Record<string, string>>;
    }
  | { kind: "checks"; options: readonly string[]; labels?: Readonly<Record<string, string>> }
  /** A list of strings, one a line. */
  | { kind: "lines" }
  /** A map of strings, one `key: value` a line (headers). */
  | { kind: "pairs" }
  /** A map of lead fields to values, one `field = value` a line; `null` clears, numbers and true/false are typed. */
  | { kind: "assignments" }
  /** A string, number or true/false, typed from what is written (`42` is a number, `true` a boolean). */
  | { kind: "scalar" }
  /** Like scalar but a list, one a line. */
  | { kind: "scalars" }
  /** A number, or an ISO date kept as text. */
  | { kind: "ordered" }
  /** Yes or no, required. */
  | { kind: "yesno" }
  /** Yes, no or the API's default. */
  | { kind: "maybe" }
  /** A user of the organization, by id, chosen by name; `unchosen` names what leaving it empty means (else required). */
  | { kind: "person"; unchosen?: string };

/** One setting: its key (dots reach into nested objects such as `audience.maxLeads`) and how it is asked. */
export type FieldSpec = FieldKind & { key: string; label: string; hint?: string };

type Settings = Record<string, unknown>;

/** Whom a `person` setting offers: the organization's people. */
export interface Person {
  id: string;
  name: string;
  email: string;
}

/** The value at a dotted key (`audience.maxLeads`). */
export function readSetting(settings: Settings, key: string): unknown {
  return key
    .split(".")
    .reduce<unknown>(
      (value, part) => (value && typeof value === "object" ? (value as Settings)[part] : undefined),
      settings,
    );
}

/** A copy of `settings` with the dotted key set; `undefined` removes it, and an emptied nested object goes too. */
export function writeSetting(settings: Settings, key: string, value: unknown): Settings {
  const [head, ...rest] = key.split(".") as [string, ...string[]];
  const next = { ...settings };
  const inner =
    rest.length > 0 ? writeSetting((settings[head] as Settings | undefined) ?? {}, rest.join("."), value) : value;
  if (inner === undefined || (rest.length > 0 && Object.keys(inner as Settings).length === 0)) delete next[head];
  else next[head] = inner;
  return next;
}

/** `42` → 42, `true` → true, anything else stays text (how a person writes a value to compare or set). */
function typed(text: string): string | number | boolean | null {
  if (text === "true" || text === "false") return text === "true";
  if (text === "null") return null;
  return /^-?\d+(\.\d+)?$/.test(text) ? Number(text) : text;
}

const lines = (text: string) =>
  text
    .split("\n")
    .map((line) => line.trim())
    .filter(Boolean);
const nonEmpty = <T,>(list: T[]) => (list.length > 0 ? list : undefined);

/** Splits each line at the first `separator` into a map; a line without it keeps an empty value so the API names it. */
function pairsOf(
  text: string,
  separator: string,
  value: (raw: string) => unknown,
): Record<string, unknown> | undefined {
  const entries = lines(text).map((line) => {
    const at = line.indexOf(separator);
    return at < 0 ? [line, ""] : [line.slice(0, at).trim(), value(line.slice(at + separator.length).trim())];
  });
  return entries.length > 0 ? Object.fromEntries(entries) : undefined;
}

/** The text a setting's value is shown as in its input. */
function shown(spec: FieldSpec, value: unknown): string {
  if (value === undefined || value === null) return "";
  if (spec.kind === "pairs")
    return Object.entries(value as Settings)
      .map(([name, text]) => `${name}: ${String(text)}`)
      .join("\n");
  if (spec.kind === "assignments")
    return Object.entries(value as Settings)
      .map(([name, text]) => `${name} = ${String(text)}`)
      .join("\n");
  if (Array.isArray(value)) return value.map(String).join("\n");
  return String(value);
}

/** The value a setting takes from its input's text; `undefined` (empty) leaves it out so the API's default applies. */
function parsed(spec: FieldSpec, text: string): unknown {
  if (text.trim() === "") return undefined;
  switch (spec.kind) {
    case "number":
      return Number.isNaN(Number(text)) ? text : Number(text);
    case "lines":
      return nonEmpty(lines(text));
    case "scalars":
      return nonEmpty(lines(text).map(typed));
    case "pairs":
      return pairsOf(text, ":", (raw) => raw);
    case "assignments":
      return pairsOf(text, "=", typed);
    case "scalar":
      return typed(text.trim());
    case "ordered":
      return /^-?\d+(\.\d+)?$/.test(text.trim()) ? Number(text) : text.trim();
    case "yesno":
    case "maybe":
      return text === "true";
    default:
      return text;
  }
}

/** One setting's input, labelled, with the API's error for it beside it. */
export function SettingInput(props: {
  spec: FieldSpec;
  settings: Settings;
  pointer: string;
  errors: string[];
  onChange: (settings: Settings) => void;
  people?: Person[] | null;
}) {
  const { spec, settings, onChange } = props;
  const value = readSetting(settings, spec.key);
  const set = (next: unknown) => onChange(writeSetting(settings, spec.key, next));
  if (spec.kind === "checks") {
    const chosen = (value as string[] | undefined) ?? [];
    return (
      <fieldset class={props.errors.length ? "field invalid" : "field"} data-pointer={props.pointer}>
        <legend>{spec.label}</legend>
        <div class="checks">
          {spec.options.map((option) => (
            <label>
              <input
                type="checkbox"
                checked={chosen.includes(option)}
                onChange={(event) => {
                  const next = event.currentTarget.checked
                    ? [...chosen, option]
                    : chosen.filter((item) => item !== option);
                  set(nonEmpty(spec.options.filter((item) => next.includes(item))));
                }}
              />
              {spec.labels?.[option] ?? option}
            </label>
          ))}
        </div>
        {props.errors.length > 0 && <p class="field-error">{props.errors.join(" ")}</p>}
      </fieldset>
    );
  }
  return (
    <Field label={spec.label} pointer={props.pointer} errors={props.errors} hint={spec.hint}>
      {(described) => {
        if (spec.kind === "person") {
          const people = props.people ?? [];
          // Someone the list lacks (past the first page of people, or removed) stays chosen, shown by id.
          const unlisted = typeof value === "string" && !people.some((person) => person.id === value);
          return (
            <select
              {...described}
              value={typeof value === "string" ? value : ""}
              onChange={(event) => set(event.currentTarget.value || undefined)}
            >
              {(spec.unchosen !== undefined || value === undefined) && (
                <option value="">{spec.unchosen ?? "Choose…"}</option>
              )}
              {unlisted && <option value={value}>{value}</option>}
              {people.map((person) => (
                <option value={person.id}>
                  {person.name} ({person.email})
                </option>
              ))}
            </select>
          );
        }
        if (spec.kind === "select" || spec.kind === "yesno" || spec.kind === "maybe") {
          const options = spec.kind === "select" ? spec.options : ["true", "false"];
          const required = spec.kind === "yesno" || (spec.kind === "select" && !spec.optional);
          const select = spec.kind === "select" ? spec : undefined;
          return (
            <select
              {...described}
              value={value === undefined || value === null ? "" : String(value)}
              onChange={(event) => set(parsed(spec, event.currentTarget.value))}
            >
              {(!required || value === undefined || value === null) && (
                <option value="">{required ? "Choose…" : (select?.unchosen ?? "Default")}</option>
              )}
              {options.map((option) => (
                <option value={option}>
                  {option === "true" ? "Yes" : option === "false" ? "No" : (select?.labels?.[option] ?? option)}
                </option>
              ))}
            </select>
          );
        }
        if (spec.kind === "textarea")
          return (
            <textarea
              {...described}
              rows={3}
              value={shown(spec, value)}
              onInput={(event) => set(parsed(spec, event.currentTarget.value))}
            />
          );
        const multiline =
          spec.kind === "lines" || spec.kind === "scalars" || spec.kind === "pairs" || spec.kind === "assignments";
        // Lists are read when the input is left (change), so typing a new line is not undone by the parse.
        if (multiline)
          return (
            <ListText described={described} shown={shown(spec, value)} onCommit={(text) => set(parsed(spec, text))} />
          );
        return (
          <input
            {...described}
            type={
              (spec.kind === "time" || spec.kind === "number" || spec.kind === "url" ? spec.kind : "text") as "text"
            }
            value={shown(spec, value)}
            onInput={(event) => set(parsed(spec, event.currentTarget.value))}
          />
        );
      }}
    </Field>
  );
}

/**
 * A list typed one item a line, read when the input is left. What is typed lives here until then: bound to the stored
 * value alone, any re-render before the input is left (the team arriving, a live update) would put the stored text back
 * over what was typed. A change of the stored value from elsewhere (its parse, another control) replaces the text.
 */
function ListText(props: { described: Record<string, unknown>; shown: string; onCommit: (text: string) => void }) {
  const [text, setText] = useStateResetBy(props.shown, props.shown);
  return (
    <textarea
      {...props.described}
      rows={2}
      value={text}
      onInput={(event) => setText(event.currentTarget.value)}
      onChange={(event) => props.onCommit(event.currentTarget.value)}
    />
  );
}
