import * as v from "valibot";
import { DECIMAL_PATTERN } from "#core/shared/money";
import { parsePhone } from "#core/shared/phone";
import { codePoints, describedCheck, statedShape, type FieldError } from "#core/shared/validation";

/**
 * Validators of single lead fields, shared by the flat intake parameters
 * (`FirstName`, `Phone`…) and the lead's own camelCase shape. Each accepts a
 * string (or a JSON number), trims it, treats "" as absent, and normalises:
 * phones to E.164, emails to lower case, dates to YYYY-MM-DD, enumerations to
 * PascalCase. Decimals keep their written scale ("0.10" stays "0.10").
 */

const controlCharacters = /[\u0000-\u001f\u007f]/;

/** A string (or JSON number) trimmed; `shape` is what the contract states of the string (lengths, format). */
const stringish = (shape: Record<string, unknown>) =>
  v.pipe(
    v.union([v.pipe(v.string(), statedShape(shape)), v.number()], "Must be a string."),
    v.transform((value) => String(value).trim()),
  );

/* @__NO_SIDE_EFFECTS__ */
function field<T>(
  valid: (text: string) => boolean,
  message: string,
  normalise: (text: string) => T,
  shape: Record<string, unknown> = {},
) {
  return v.optional(
    v.pipe(
      stringish(shape),
      v.check((text) => text === "" || valid(text), message),
      v.transform((text): T | undefined => (text === "" ? undefined : normalise(text))),
    ),
  );
}

const same = (text: string) => text;

/** Free text up to `max` characters (code points), without control characters. */
export const text = (max: number) =>
  field(
    (value) => codePoints(value) <= max && !controlCharacters.test(value),
    `Must be at most ${max} characters, without control characters.`,
    same,
    { maxLength: max, pattern: "^[^\\u0000-\\u001f\\u007f]*$" },
  );

const emailShape = v.pipe(v.string(), v.maxLength(254), v.email());
export const email = field(
  (value) => v.is(emailShape, value),
  "Must be an e-mail address such as ada@example.com.",
  (value) => value.toLowerCase(),
  {
    maxLength: 254,
    description: 'An e-mail address (answered in lower case); "" means none.',
  },
);

/**
 * Any common written form of a phone number; stored as E.164 (libphonenumber-js, US by default). Marked pure so a
 * bundle that uses other fields of this module leaves it, and libphonenumber-js, out.
 */
export const phone = /* @__PURE__ */ field(
  (value) => value.length <= 40 && parsePhone(value) !== undefined,
  "Must be a valid phone number, e.g. +12015550123 or (201) 555-0123.",
  (value) => parsePhone(value)!.e164,
  { maxLength: 40, description: "A phone number in any common written form (US by default), answered in E.164." },
);

/** Enumerations given in any case, with aliases, answered in PascalCase. */
/* @__NO_SIDE_EFFECTS__ */
function choice<T extends string>(aliases: Record<string, T>, label: string) {
  const allowed = [...new Set(Object.values(aliases))];
  const key = (value: string) => value.toLowerCase().replace(/[\s_-]/g, "");
  return field(
    (value) => key(value) in aliases,
    `${label} must be one of ${allowed.join(", ")}.`,
    (value) => aliases[key(value)]!,
    {
      description: `One of ${allowed.join(", ")} (any case; also ${Object.keys(aliases).join(", ")}), answered in PascalCase.`,
    },
  );
}

export const phoneTypes = {
  mobile: "Mobile",
  cell: "Mobile",
  cellular: "Mobile",
  wireless: "Mobile",
  landline: "Landline",
  home: "Landline",
  work: "Work",
  voip: "Voip",
  other: "Other",
} as const;
export const phoneType = choice(phoneTypes, "The phone type");
export const gender = choice(
  {
    m: "Male",
    male: "Male",
    f: "Female",
    female: "Female",
    x: "NonBinary",
    nonbinary: "NonBinary",
    other: "Other",
    u: "Unknown",
    unknown: "Unknown",
  },
  "Gender",
);
export const maritalStatus = choice(
  {
    single: "Single",
    married: "Married",
    divorced: "Divorced",
    separated: "Separated",
    widowed: "Widowed",
    domesticpartner: "DomesticPartner",
  },
  "Marital status",
);
export const employmentType = choice(
  {
    employed: "Employed",
    fulltime: "Employed",
    parttime: "PartTime",
    selfemployed: "SelfEmployed",
    unemployed: "Unemployed",
    retired: "Retired",
    student: "Student",
    military: "Military",
    other: "Other",
  },
  "Employment type",
);

const decimalMessage = "Must be a decimal number written like 12.50 (digits, optional minus and point; no spaces).";

/**
 * A decimal in the spec's exact written form `^-?(?:0|[1-9]\d*)(?:\.\d+)?$`,
 * kept as a string (its scale too). Not trimmed: " 1" is refused, as the
 * pattern says. A JSON number is taken as written by JSON; "" means none.
 */
export const decimal = v.optional(
  v.pipe(
    v.union(
      [
        v.pipe(
          v.string(),
          describedCheck<string>(
            (value) => value === "" || (DECIMAL_PATTERN.test(value) && value.length <= 32),
            decimalMessage,
            { pattern: DECIMAL_PATTERN.source, maxLength: 32 },
          ),
        ),
        v.pipe(
          v.number(),
          v.check((value) => DECIMAL_PATTERN.test(String(value)), decimalMessage),
        ),
      ],
      decimalMessage,
    ),
    v.transform((value) => (String(value) === "" ? undefined : String(value))),
  ),
);

/** A real calendar date (YYYY-MM-DD or MM/DD/YYYY), from 1900 up to today; answered as YYYY-MM-DD. */
export const date = field(
  (value) => toIsoDate(value) !== undefined,
  "Must be a real date, written YYYY-MM-DD or MM/DD/YYYY, not in the future.",
  (value) => toIsoDate(value)!,
);

export function toIsoDate(value: string, today = new Date()): string | undefined {
  const iso = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  const us = /^(\d{1,2})\/(\d{1,2})\/(\d{4})$/.exec(value);
  const [year, month, day] = iso ? [iso[1], iso[2], iso[3]] : us ? [us[3], us[1], us[2]] : [];
  if (!year || !month || !day) return undefined;
  const at = new Date(Date.UTC(Number(year), Number(month) - 1, Number(day)));
  if (at.getUTCFullYear() !== Number(year) || at.getUTCMonth() !== Number(month) - 1 || at.getUTCDate() !== Number(day))
    return undefined;
  if (Number(year) < 1900 || at.getTime() > today.getTime()) return undefined;
  return at.toISOString().slice(0, 10);
}

export const url = field(
  (value) => value.length <= 2048 && /^https?:\/\/[^\s]+$/i.test(value) && URL.canParse(value),
  "Must be an absolute http(s) URL.",
  same,
);
export const postalCode = field(
  (value) => /^[A-Za-z0-9][A-Za-z0-9 -]{1,9}$/.test(value),
  "Must be a postal code such as 07030 or 07030-1234.",
  (value) => value.toUpperCase(),
);
export const ipAddress = field(
  (value) => /^[0-9a-fA-F.:]{2,45}$/.test(value),
  "Must be an IPv4 or IPv6 address.",
  same,
);

/** Whole numbers 0..max given as JSON numbers or digit strings. */
export const count = (max: number) =>
  field((value) => /^\d+$/.test(value) && Number(value) <= max, `Must be a whole number from 0 to ${max}.`, Number);

export const flag = v.optional(v.boolean());

/**
 * `SourceMetadata` is echoed in every response and shown in dashboards, so only
 * what is safe to expose is kept: at most 20 keys (letters, digits, `_ . -`, up
 * to 64 characters), scalar values (strings up to 500 characters, numbers,
 * booleans, null), no markup (`<` `>`) or control characters, and no keys that
 * name credentials or sensitive personal data (password, token, secret, api key,
 * SSN, card…). Anything else is refused with 400 rather than silently stripped.
 */
export const sourceMetadataRules = {
  maxKeys: 20,
  key: /^[A-Za-z][A-Za-z0-9_.-]{0,63}$/,
  sensitiveKey:
    /pass(word|wd)?|secret|token|api[_.-]?key|auth|ssn|social[_.-]?security|card|cvv|cvc|iban|routing|account[_.-]?(number|no)/i,
  maxValueLength: 500,
};

export type SourceMetadata = Record<string, string | number | boolean | null>;

/** Checks source metadata; `value` may be an object or its JSON text. Errors are relative to the field. */
export function checkSourceMetadata(value: unknown): { metadata?: SourceMetadata; errors: FieldError[] } {
  let parsed = value;
  if (typeof value === "string") {
    if (value.trim() === "") return { errors: [] };
    try {
      parsed = JSON.parse(value);
    } catch {
      return {
        errors: [
          {
            pointer: "",
            detail: "Must be a JSON object, or sent as bracketed keys such as SourceMetadata[campaign]=spring.",
          },
        ],
      };
    }
  }
  if (parsed === null || parsed === undefined) return { errors: [] };
  if (typeof parsed !== "object" || Array.isArray(parsed))
    return { errors: [{ pointer: "", detail: "Must be an object of key-value pairs." }] };
  const entries = Object.entries(parsed as Record<string, unknown>);
  const errors: FieldError[] = [];
  if (entries.length > sourceMetadataRules.maxKeys)
    errors.push({ pointer: "", detail: `At most ${sourceMetadataRules.maxKeys} keys.` });
  const metadata: SourceMetadata = {};
  for (const [key, entry] of entries) {
    const pointer = `/${key.replaceAll("~", "~0").replaceAll("/", "~1")}`;
    if (!sourceMetadataRules.key.test(key)) {
      errors.push({
        pointer,
        detail: "Keys start with a letter and use letters, digits, '_', '.' or '-' (at most 64).",
      });
    } else if (sourceMetadataRules.sensitiveKey.test(key)) {
      errors.push({
        pointer,
        detail:
          "Metadata is shown in responses; credentials and sensitive personal data (passwords, tokens, SSNs, card numbers) are not accepted.",
      });
    } else if (entry !== null && !["string", "number", "boolean"].includes(typeof entry)) {
      errors.push({
        pointer,
        detail: "Values must be strings, numbers, booleans or null (no nested objects or arrays).",
      });
    } else if (typeof entry === "number" && !Number.isFinite(entry)) {
      errors.push({ pointer, detail: "Numbers must be finite." });
    } else if (
      typeof entry === "string" &&
      (entry.length > sourceMetadataRules.maxValueLength || controlCharacters.test(entry) || /[<>]/.test(entry))
    ) {
      errors.push({
        pointer,
        detail: `Strings must be at most ${sourceMetadataRules.maxValueLength} characters, without markup ('<', '>') or control characters.`,
      });
    } else {
      metadata[key] = entry as string | number | boolean | null;
    }
  }
  return errors.length ? { errors } : { metadata, errors };
}
