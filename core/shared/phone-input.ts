import * as v from "valibot";
import { ValidationError } from "#core/errors";
import { decodePhoneInput, parsePhone } from "#core/shared/phone";
import { statedShape } from "#core/shared/validation";

/** A phone number as callers write it, answered in E.164 (request bodies of numbers, suppressions, calls). */
export const PhoneNumberInput = v.pipe(
  v.string(),
  statedShape({
    pattern: "^\\s*\\+?[0-9][0-9 ().-]{5,38}$",
    description:
      "A phone number: E.164 (+12125550100) or a common national form ((212) 555-0100, US by default); it must be a valid number of its country's numbering plan. Answered in E.164.",
  }),
  v.trim(),
  v.minLength(1, "A phone number is required."),
  v.check((value) => parsePhone(value) !== undefined, "Must be a valid phone number (E.164, e.g. +12125550100)."),
  v.transform((value) => parsePhone(value)!.e164),
);

/** A phone number from a path segment (`%2B1…`, `+1…`, ` 1…`) in E.164; malformed → 400 naming the path `field`. */
export function phoneFromPath(raw: string, field: string): string {
  const parsed = parsePhone(decodePhoneInput(raw));
  if (!parsed) {
    throw new ValidationError("The phone number in the path is not valid.", [
      { in: "path", field, detail: "Must be a valid phone number (E.164, e.g. +12125550100; URL-encode the +)." },
    ]);
  }
  return parsed.e164;
}
