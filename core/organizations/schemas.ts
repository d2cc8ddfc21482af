import * as v from "valibot";
import { timestamp } from "#core/shared/ids";

// The request schema lives apart (it validates a phone); re-exported so callers keep one module for both.
export { UpdateOrganizationSchema, type UpdateOrganization } from "#core/organizations/profile-request";

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
