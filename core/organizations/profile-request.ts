import * as v from "valibot";
import { PhoneNumberInput } from "#core/shared/phone-input";
import { maxChars, TimeZoneSchema } from "#core/shared/validation";

/**
 * Apart from schemas.ts (the profile as answered, which sign-up and every `Users` function bundle) and profile.ts
 * (authentication reads it on every cold credential): the phone field brings libphonenumber-js (~123 KB).
 */

const WebsiteSchema = v.pipe(
  v.string(),
  v.trim(),
  maxChars(200),
  v.url("Must be a web address such as https://example.com."),
  v.check((url) => /^https?:\/\//i.test(url), "Must be a web address such as https://example.com."),
);

/** Body of `PUT /organizations/me`: absent fields are kept; `phone` and `website` take null to clear them. */
export const UpdateOrganizationSchema = v.strictObject({
  name: v.optional(v.pipe(v.string(), v.trim(), v.minLength(1, "A name is required."), maxChars(200))),
  timeZone: v.optional(TimeZoneSchema),
  phone: v.optional(v.nullable(PhoneNumberInput)),
  website: v.optional(v.nullable(WebsiteSchema)),
});
export type UpdateOrganization = v.InferOutput<typeof UpdateOrganizationSchema>;
