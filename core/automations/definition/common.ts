import * as v from "valibot";
// The same metadata set as core/shared/phone.ts (libphonenumber-js "min", read from a file on first use).
import { isPossiblePhone } from "#core/shared/phone-metadata";
import { maxChars } from "#core/shared/validation";
import { leadFieldPathProblem } from "./lead-fields.ts";
import { parseTemplate } from "./template.ts";
import { clockPattern } from "./time.ts";
import { automationLimits } from "./values.ts";

/** A validation step that reports `problemOf(value)` as the issue message when it returns a sentence. */
/* @__NO_SIDE_EFFECTS__ */
export function problemCheck<T>(problemOf: (value: T) => string | undefined) {
  return v.rawCheck<T>(({ dataset, addIssue }) => {
    if (!dataset.typed) return;
    const problem = problemOf(dataset.value);
    if (problem) addIssue({ message: problem });
  });
}

/** Trimmed non-empty string of at most `max` characters. */
/* @__NO_SIDE_EFFECTS__ */
export function text(max: number) {
  return v.pipe(v.string(), v.trim(), v.minLength(1), maxChars(max));
}

/** Id of a node inside one automation; chosen by the client, unique across all its nodes. */
export const NodeIdSchema = v.pipe(
  v.string(),
  v.regex(
    new RegExp(`^[A-Za-z0-9_-]{1,${automationLimits.nodeIdLength}}$`),
    `Must be 1-${automationLimits.nodeIdLength} letters, digits, "_" or "-".`,
  ),
);

/** Id of another resource of the organization (source, phone number). */
export const ResourceIdSchema = text(64);

/** A non-empty list of resource ids that narrows a trigger. */
export const ResourceIdListSchema = v.pipe(v.array(ResourceIdSchema), v.minLength(1), v.maxLength(100));

export const HttpUrlSchema = v.pipe(
  v.string(),
  v.url("Must be an absolute http or https URL."),
  v.check((url) => !URL.canParse(url) || /^https?:$/.test(new URL(url).protocol), "Must be an http or https URL."),
);

export const E164Schema = v.pipe(
  v.string(),
  v.check(
    (phone) => /^\+[1-9]\d{6,14}$/.test(phone) && isPossiblePhone(phone),
    "Must be a phone number in E.164 form, such as +14155550123.",
  ),
);

export const ClockTimeSchema = v.pipe(
  v.string(),
  v.regex(clockPattern, "Must be a 24-hour time HH:mm, such as 09:00 or 17:30."),
);

/** Text with `{{path}}` / `{{path|fallback}}` placeholders over lead fields. */
/* @__NO_SIDE_EFFECTS__ */
export function templateSchema(maxLength: number) {
  return v.pipe(
    v.string(),
    v.minLength(1),
    v.maxLength(maxLength),
    problemCheck<string>((template) => {
      const parsed = parseTemplate(template);
      return parsed.ok ? undefined : parsed.problem;
    }),
  );
}

export const LeadFieldPathSchema = v.pipe(v.string(), problemCheck(leadFieldPathProblem));

/** A single comparable value: string, number or boolean. */
export const ScalarSchema = v.union(
  [v.pipe(v.string(), v.maxLength(1000)), v.number(), v.boolean()],
  "Must be a string, a number or true/false.",
);

/**
 * Settings object of one node type: strict (unknown keys are errors), described for the contract, and optional in
 * the request (`{}` is used when absent, so types whose settings are all optional need none).
 */
/* @__NO_SIDE_EFFECTS__ */
export function settingsSchema<const TEntries extends v.ObjectEntries>(description: string, entries: TEntries) {
  return v.pipe(v.strictObject(entries), v.description(description));
}

/**
 * A trigger, condition or action node of one `type`: `id`, `type`, the kind's own `entries`, `isEnabled` (default
 * true) and `settings`, which may be omitted (defaulting to `{}`) only when the type has no required setting.
 */
export function nodeSchema<
  const TType extends string,
  const TEntries extends v.ObjectEntries,
  TSettings extends v.GenericSchema<Record<string, unknown>>,
>(type: TType, entries: TEntries, settings: TSettings) {
  return v.strictObject({
    id: NodeIdSchema,
    type: v.literal(type),
    ...entries,
    isEnabled: v.optional(v.boolean(), true),
    settings: settingsMember(settings),
  });
}

function settingsMember<TSettings extends v.GenericSchema<Record<string, unknown>>>(settings: TSettings) {
  const optional = v.optional(settings, () => ({}) as v.InferInput<TSettings>);
  // Typed as optional either way; at run time a type with required settings needs the member.
  return v.safeParse(settings, {}).success ? optional : (settings as unknown as typeof optional);
}

/** Words of a PascalCase type for default display names: `LeadCreated` → `Lead created`. */
export function humanize(type: string): string {
  const words = type.replaceAll(/([a-z])([A-Z])/g, "$1 $2").split(" ");
  return words.map((word, index) => (index === 0 || /^[A-Z]{2,}/.test(word) ? word : word.toLowerCase())).join(" ");
}

/** Exactly one of `keys` must be present; reported on the settings object. */
/* @__NO_SIDE_EFFECTS__ */
export function exactlyOne<T extends Record<string, unknown>>(keys: readonly (keyof T & string)[]) {
  return problemCheck<T>((settings) => {
    const present = keys.filter((key) => settings[key] !== undefined);
    return present.length === 1 ? undefined : `Give exactly one of ${keys.map((key) => `"${key}"`).join(" or ")}.`;
  });
}
