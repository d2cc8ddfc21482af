import { routedBy } from "#core/http/operation";
import { organizationRoutes } from "#stacks/definitions";
import { OrganizationSchema, UpdateOrganizationSchema } from "#core/organizations/schemas";

const defineOperation = routedBy(organizationRoutes);

export const getCurrentOrganization = /* @__PURE__ */ defineOperation({
  operationId: "getCurrentOrganization",
  summary: "The organization's business profile (`/me`: the caller's organization)",
  tag: "Organization",
  auth: "bearer",
  permission: "users:read",
  success: { status: 200, description: "The organization's profile", schema: OrganizationSchema },
  problems: [401, 403, 429],
});

export const updateCurrentOrganization = /* @__PURE__ */ defineOperation({
  operationId: "updateCurrentOrganization",
  summary: "Change the organization's name, time zone, phone or website",
  description:
    "Absent fields are kept; `phone` and `website` take null to clear them. `timeZone` is an IANA zone " +
    "(schedules, `Wait` until a time, working-time routing, the quiet-hours fallback): a cron Schedule trigger keeps " +
    "its wall-clock time in the new zone from its next firing (one whose time has already passed there fires at " +
    "once). The change is in the audit log.",
  tag: "Organization",
  auth: "bearer",
  permission: "users:write",
  body: UpdateOrganizationSchema,
  success: { status: 200, description: "The organization's profile", schema: OrganizationSchema },
  problems: [400, 401, 403, 409, 413, 415, 429],
  example: {
    name: "Acme Roofing",
    timeZone: "America/Chicago",
    phone: "+13125550100",
    website: "https://acmeroofing.example.com",
  },
});
