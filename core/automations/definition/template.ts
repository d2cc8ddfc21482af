import { templatePathProblem } from "./lead-fields.ts";

/** One `{{path}}` or `{{path|fallback}}` placeholder of a message or request template. */
export interface TemplatePlaceholder {
  path: string;
  /** Text used when the field is missing or empty; overrides the action's `fallback` setting. */
  fallback: string | undefined;
  start: number;
  end: number;
}

export type ParsedTemplate = { ok: true; placeholders: TemplatePlaceholder[] } | { ok: false; problem: string };

/** Splits a template into its placeholders, or says in a sentence why it is malformed. */
export function parseTemplate(text: string): ParsedTemplate {
  const placeholders: TemplatePlaceholder[] = [];
  let cursor = 0;
  for (;;) {
    const open = text.indexOf("{{", cursor);
    const strayClose = text.indexOf("}}", cursor);
    if (strayClose !== -1 && (open === -1 || strayClose < open)) {
      return { ok: false, problem: `The template has "}}" at position ${strayClose} without a matching "{{".` };
    }
    if (open === -1) return { ok: true, placeholders };
    const close = text.indexOf("}}", open + 2);
    if (close === -1)
      return { ok: false, problem: `The placeholder opened at position ${open} is never closed with "}}".` };
    const inner = text.slice(open + 2, close);
    if (inner.includes("{{"))
      return { ok: false, problem: `The placeholder opened at position ${open} contains another "{{".` };
    const bar = inner.indexOf("|");
    const path = (bar === -1 ? inner : inner.slice(0, bar)).trim();
    const problem = templatePathProblem(path);
    if (problem) return { ok: false, problem: `The placeholder "{{${inner}}}" is invalid: ${problem}` };
    placeholders.push({
      path,
      fallback: bar === -1 ? undefined : inner.slice(bar + 1).trim(),
      start: open,
      end: close + 2,
    });
    cursor = close + 2;
  }
}

export interface RenderOptions {
  /** Used for a missing or empty field when the placeholder has no `|fallback` of its own. */
  fallback?: string;
  /** Applied to each inserted value, e.g. JSON string escaping for HttpRequest bodies. */
  encode?: (value: string) => string;
}

/** Fills a template that passed validation; `lookup` returns the value at a field path (e.g. from the lead). */
export function renderTemplate(text: string, lookup: (path: string) => unknown, options: RenderOptions = {}): string {
  const parsed = parseTemplate(text);
  if (!parsed.ok) throw new Error(parsed.problem);
  const encode = options.encode ?? ((value: string) => value);
  let output = "";
  let cursor = 0;
  for (const placeholder of parsed.placeholders) {
    const value = lookup(placeholder.path);
    const rendered = value === undefined || value === null || value === "" ? undefined : stringify(value);
    output +=
      text.slice(cursor, placeholder.start) + encode(rendered ?? placeholder.fallback ?? options.fallback ?? "");
    cursor = placeholder.end;
  }
  return output + text.slice(cursor);
}

/** Escapes a value for insertion inside a JSON string literal (`"name": "{{contact.firstName}}"`). */
export function jsonStringEncode(value: string): string {
  return JSON.stringify(value).slice(1, -1);
}

function stringify(value: unknown): string {
  return typeof value === "object" ? JSON.stringify(value) : String(value);
}
