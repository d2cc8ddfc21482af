import * as v from "valibot";

/** One offending field of a request: where it is (RFC 6901 JSON Pointer) and what is wrong, in a sentence. */
export interface FieldError {
  pointer: string;
  detail: string;
}

/** A location inside a value, as object keys and array indexes (`["actions", 2, "settings"]`). */
export type PathSegments = readonly (string | number)[];

/** Builds an RFC 6901 JSON Pointer (`""` is the whole document; `~` and `/` in keys are escaped). */
export function toPointer(segments: PathSegments): string {
  return segments.map((segment) => `/${String(segment).replaceAll("~", "~0").replaceAll("/", "~1")}`).join("");
}

/** Turns valibot issues into field errors with JSON Pointers, so every 400 names each field the same way. */
export function toFieldErrors(issues: readonly v.BaseIssue<unknown>[]): FieldError[] {
  return issues.map((issue) => ({
    pointer: toPointer((issue.path ?? []).map((item) => item.key as string | number)),
    detail: describeIssue(issue),
  }));
}

/**
 * Valibot path items for `segments`, walking `root`, for checks that report an issue deeper than where they run
 * (valibot's `rawCheck` `addIssue({ path })`).
 */
export function toIssuePath(
  root: unknown,
  segments: PathSegments,
): [v.IssuePathItem, ...v.IssuePathItem[]] | undefined {
  const items: v.IssuePathItem[] = [];
  let input: unknown = root;
  for (const key of segments) {
    if (Array.isArray(input) && typeof key === "number") {
      const value: unknown = input[key];
      items.push({ type: "array", origin: "value", input, key, value });
      input = value;
    } else if (input !== null && typeof input === "object") {
      const record = input as Record<string, unknown>;
      const value = record[String(key)];
      items.push({ type: "object", origin: "value", input: record, key: String(key), value });
      input = value;
    } else {
      break;
    }
  }
  const [first, ...rest] = items;
  return first ? [first, ...rest] : undefined;
}

/** NUL, or a UTF-16 surrogate without its pair (what invalid UTF-8 or a lone `\ud800` escape decodes to). */
const illFormedText = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * Refuses NUL characters and lone surrogates in every string of a request (body,
 * query, path), each reported at its own pointer. One piece run before every
 * operation's schema, so no text field (present or future) can store them: they
 * break C-string consumers, CSV exports and the carriers' UTF-8 encoders.
 */
export const wellFormedText = v.pipe(
  v.unknown(),
  v.rawCheck(({ dataset, addIssue }) => {
    // A walk with its own stack, not recursion: however deep the value, it costs its size and never the call stack.
    const pending: [unknown, (string | number)[]][] = [[dataset.value, []]];
    for (let next = pending.pop(); next; next = pending.pop()) {
      const [value, segments] = next;
      if (typeof value === "string") {
        if (illFormedText.test(value)) {
          addIssue({
            message: "Must be valid UTF-8 text without NUL characters.",
            path: toIssuePath(dataset.value, segments),
          });
        }
      } else if (Array.isArray(value)) {
        for (let index = value.length - 1; index >= 0; index--) pending.push([value[index], [...segments, index]]);
      } else if (value !== null && typeof value === "object") {
        for (const [key, item] of Object.entries(value).reverse()) pending.push([item, [...segments, key]]);
      }
    }
  }),
);

const typeNames: Record<string, string> = {
  string: "a string",
  number: "a number",
  boolean: "true or false",
  array: "an array",
  Array: "an array",
  object: "an object",
  Object: "an object",
  integer: "an integer",
  null: "null",
};

/** Valibot's default messages ("Invalid type: Expected string but received 5") rephrased as sentences; custom messages pass through. */
function describeIssue(issue: v.BaseIssue<unknown>): string {
  if (!issue.message.startsWith("Invalid ")) return issue.message;
  const received = typeNames[issue.received] ?? issue.received;
  const lastKey = issue.path?.at(-1)?.key;
  switch (issue.type) {
    case "object":
    case "strict_object":
    case "loose_object":
    case "object_with_rest":
      if (issue.expected === "never") return `Unknown field ${JSON.stringify(lastKey)} is not allowed here.`;
      if (received === "undefined" && issue.expected?.startsWith('"')) return `${issue.expected} is required.`;
      return `Must be an object (received ${received}).`;
    case "variant":
    case "picklist":
    case "literal":
    case "enum":
      if (issue.expected === "Object") return `Must be an object (received ${received}).`;
      if (received === "undefined") return `Required; must be one of ${listOptions(issue.expected)}.`;
      return `Must be one of ${listOptions(issue.expected)} (received ${received}).`;
    case "min_length":
      if (issue.requirement === 1)
        return Array.isArray(issue.input) ? "Must not be empty." : "Must not be empty or blank.";
      return Array.isArray(issue.input)
        ? `Must contain at least ${issue.requirement as number} item(s).`
        : `Must be at least ${issue.requirement as number} character(s) long.`;
    case "max_length":
      return Array.isArray(issue.input)
        ? `Must contain at most ${issue.requirement as number} item(s).`
        : `Must be at most ${issue.requirement as number} character(s) long.`;
    case "min_value":
      return `Must be at least ${String(issue.requirement)} (received ${received}).`;
    case "max_value":
      return `Must be at most ${String(issue.requirement)} (received ${received}).`;
    case "min_entries":
      return `Must contain at least ${issue.requirement as number} entr${issue.requirement === 1 ? "y" : "ies"}.`;
    case "max_entries":
      return `Must contain at most ${issue.requirement as number} entries.`;
    case "integer":
      return `Must be an integer (received ${received}).`;
    case "url":
      return `Must be an absolute URL (received ${received}).`;
    case "email":
    case "rfc_email":
      return `Must be an e-mail address (received ${received}).`;
    case "iso_timestamp":
    case "iso_date_time":
      return `Must be an ISO 8601 date-time (received ${received}).`;
    default: {
      const expected = issue.expected ? (typeNames[issue.expected] ?? issue.expected) : undefined;
      if (received === "undefined") return "This field is required.";
      return expected ? `Must be ${expected} (received ${received}).` : issue.message;
    }
  }
}

function listOptions(expected: string | null): string {
  if (!expected) return "the allowed values";
  const options = expected.replaceAll(/[()]/g, "").split(" | ");
  return options.length > 1 ? `${options.slice(0, -1).join(", ")} or ${options.at(-1)}` : (options[0] ?? expected);
}

/**
 * A check whose rule the contract states as JSON Schema: core/http/openapi.ts
 * merges `jsonSchema` into the field's schema, so a rule valibot cannot express
 * natively (characters counted as code points) still reaches the contract.
 */
/* @__NO_SIDE_EFFECTS__ */
export function describedCheck<T>(
  requirement: (value: T) => boolean,
  message: string,
  jsonSchema: Record<string, unknown>,
) {
  return Object.assign(v.check<T, string>(requirement, message), { jsonSchema });
}

/** Characters as a person (and JSON Schema's maxLength) counts them: code points, so an emoji is one, not two UTF-16 units. */
export function codePoints(text: string): number {
  let count = 0;
  for (const _ of text) count++;
  return count;
}

/** At most `max` characters (code points): 128 emoji make a valid 255-character name. */
/* @__NO_SIDE_EFFECTS__ */
export function maxChars(max: number, message = `Must be at most ${max} characters.`) {
  return describedCheck<string>((value) => codePoints(value) <= max, message, { maxLength: max });
}

/** States a string's shape in the contract (pattern, lengths, description) where the checks that follow enforce it in code. */
/* @__NO_SIDE_EFFECTS__ */
export function statedShape(jsonSchema: Record<string, unknown>) {
  return describedCheck<string>(() => true, "", jsonSchema);
}

/** An IANA time zone name the runtime knows (`America/New_York`): a user's, an organization's. */
export const TimeZoneSchema = v.pipe(
  v.string(),
  v.maxLength(64, "Must be at most 64 characters."),
  v.check((zone) => {
    try {
      new Intl.DateTimeFormat("en-US", { timeZone: zone });
      return true;
    } catch {
      return false;
    }
  }, "Must be an IANA time zone, e.g. America/New_York."),
);
