import * as v from "valibot";
import { PhoneNumberInput } from "#core/shared/phone-input";
import { maxChars, TimeZoneSchema } from "#core/shared/validation";
import { AlertPreferencesSchema, WorkingHoursSchema } from "#core/users/schemas";

/**
 * Body of `PUT /users/me`: the fields a user keeps themselves (absent fields are unchanged, null clears). A module of its
 * own, neither in schemas.ts (authentication reads it on every request) nor beside `updateProfile` in team.ts (every
 * `Users` function bundles it): its phone field puts libphonenumber-js (~123 KB) into the bundle.
 */
export const UpdateProfileSchema = v.strictObject({
  name: v.optional(v.pipe(v.string(), v.trim(), v.minLength(1), maxChars(200))),
  phone: v.optional(v.nullable(PhoneNumberInput)),
  timeZone: v.optional(v.nullable(TimeZoneSchema)),
  workingHours: v.optional(WorkingHoursSchema),
  alerts: v.optional(AlertPreferencesSchema),
});
export type UpdateProfile = v.InferOutput<typeof UpdateProfileSchema>;
