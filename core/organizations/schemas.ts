import * as v from "valibot";
import { timestamp } from "#core/shared/ids";
import { PhoneNumberInput } from "#core/shared/phone-input";
import { TimeZoneSchema } from "#core/shared/validation";
import { maxChars } from "#core/shared/validation";

// Apart from profile.ts, which authentication reads on every cold credential: these bundle the phone validator.

/** The organization's business profile (`GET /organizations/me`); what each field is used for: docs/decisions.md. */
export const OrganizationSchema = v.object({
  id: v.string(),
  name: v.pipe(v.string(), v.description("The business's name: compliance replies, message templates, automations.")),
  timeZone: v.pipe(
    v.string(),
    v.description("IANA zone of schedules, `Wait` until a time, working-time routing and the quiet-hours fallback."),
  ),
  phone: v.pipe(
    v.nullable(v.string()),
    v.description("The business's phone (E.164) for leads to call: `{{organization.phone}}` in message templates."),
  ),
  website: v.pipe(v.nullable(v.string()), v.description("The business's website: `{{organization.website}}`.")),
  createdAt: timestamp,
  modifiedAt: v.nullable(timestamp),
});

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
