import { routedBy } from "#core/http/operation";
import { leadRoutes } from "#stacks/definitions";
import {
  AssignLeadSchema,
  IntakeBodySchema,
  IntakeQuerySchema,
  LeadIdParams,
  LeadSchema,
  LeadWriteSchema,
  SourceCredentialQuerySchema,
} from "#core/leads/schemas";
import { ListLeadsSchema } from "#core/leads/list";
import { LeadNoteSchema } from "#core/leads/notes";
import { AddNoteSchema } from "#core/shared/notes";
import { pageSchema } from "#core/shared/paging";

const defineOperation = routedBy(leadRoutes);

const outcome =
  'Answers 201 once the lead is durably stored, with `processingStatus: "Pending"`; processing (dedupe, suppression, consent, automations) runs after the answer and `GET /leads/{id}` shows `Processed`, `Duplicate`, `Rejected` (with `processingReason`) or `Failed`. ' +
  "A repeat of a `SellerLeadId`/`ExternalId` already received from the same source answers 200 with the original lead.";

/**
 * 201 for a new lead; 200 for a seller's repeat (same SellerLeadId/ExternalId from the same source): the
 * seller's client sees success either way, and the status tells it the lead was already received.
 */
const storedLead = {
  status: 201,
  description: "The stored lead (processing pending)",
  schema: LeadSchema,
  alternateStatus: {
    status: 200,
    description: "A repeat of a SellerLeadId/ExternalId this source already sent: the original lead, unchanged",
  },
} as const;

const sourceKey = "Source key: query `sourceId` + `apiKey`, or headers `X-Source-Id` + `X-Source-Key`.";

// Built apart from the operations (an interpolated string counts as an effect for the bundler; see analytics.ts).
const intakeByQueryDescription = `${outcome} ${sourceKey} Aliases: DateOfBirth/BirthDate, Zip/PostalCode, SellerLeadId/SellerLeadIdentifier. SourceMetadata as JSON or bracketed keys (SourceMetadata[campaign]=spring).`;
const intakeDescription = `${outcome} ${sourceKey}`;
const createDescription = `${outcome} Bearer callers may name one of their sources in \`sourceId\`; a source key posts into its own source. ${sourceKey}`;

export const intakeLeadByQuery = /* @__PURE__ */ defineOperation({
  operationId: "intakeLeadByQuery",
  summary: "Lead intake with flat query parameters (source key in the query)",
  description: intakeByQueryDescription,
  tag: "Leads",
  auth: "bearerOrSource",
  permission: "leads:write",
  query: IntakeQuerySchema,
  idempotent: true,
  success: storedLead,
  problems: [400, 401, 403, 409, 422, 429],
});

export const intakeLead = /* @__PURE__ */ defineOperation({
  operationId: "intakeLead",
  summary: "Lead intake with the flat fields as a JSON body",
  description: intakeDescription,
  tag: "Leads",
  auth: "bearerOrSource",
  permission: "leads:write",
  query: SourceCredentialQuerySchema,
  body: IntakeBodySchema,
  idempotent: true,
  success: storedLead,
  problems: [400, 401, 403, 409, 413, 415, 422, 429],
  example: {
    FirstName: "Ada",
    LastName: "Lovelace",
    Phone: "(201) 555-0123",
    Email: "ada@example.com",
    Zip: "07030",
    Price: "12.50",
    SellerLeadId: "A-1001",
    SourceMetadata: { campaign: "spring" },
  },
});

export const createLead = /* @__PURE__ */ defineOperation({
  operationId: "createLead",
  summary: "Create a lead from its own shape (contact, customer, metadata)",
  description: createDescription,
  tag: "Leads",
  auth: "bearerOrSource",
  permission: "leads:write",
  query: SourceCredentialQuerySchema,
  body: LeadWriteSchema,
  idempotent: true,
  success: storedLead,
  problems: [400, 401, 403, 409, 413, 415, 422, 429],
  example: {
    contact: {
      firstName: "Ada",
      lastName: "Lovelace",
      email: "ada@example.com",
      phone: { number: "+12015550123", type: "Mobile" },
    },
    customer: { birthDate: "1990-12-10" },
    metadata: { utmSource: "google", price: "12.50", vertical: "Insurance" },
  },
});

export const getLead = /* @__PURE__ */ defineOperation({
  operationId: "getLead",
  summary: "Read one lead of the current organization, with its processing outcome",
  tag: "Leads",
  auth: "bearer",
  permission: "leads:read",
  params: LeadIdParams,
  success: { status: 200, description: "The lead", schema: LeadSchema },
  problems: [401, 403, 404, 429],
});

export const listLeads = /* @__PURE__ */ defineOperation({
  operationId: "listLeads",
  summary: "List the current organization's leads (paging query in the body)",
  description:
    "Filters: sourceId, processingStatus, assignedUserId (a user id, `mine` for the calling user, `unassigned`), vertical, product, complianceStatus, metadata.utmSource, metadata.utmCampaign, metadata.subId, email, phone. Search: name, email, phone. Sort: createdAt, modifiedAt, price, name. Ranges: createdAt, modifiedAt, price. An agent of an organization whose agents see only their own leads lists only the leads assigned to them. Sorted by createdAt only (the default, newest first), every query is read page by page in key order; with filters, ranges or search a page may then hold fewer than pageSize items (even none) while a continuationToken is returned, so keep following it until it is null. Other sorts read the organization's leads.",
  tag: "Leads",
  auth: "bearer",
  permission: "leads:read",
  body: ListLeadsSchema,
  success: { status: 200, description: "A page of leads", schema: /* @__PURE__ */ pageSchema(LeadSchema) },
  problems: [400, 401, 403, 413, 415, 429],
  example: {
    pageSize: 25,
    filters: [{ field: "processingStatus", value: "Processed" }],
    orderBy: [{ field: "createdAt", direction: "desc" }],
  },
});

export const addLeadNote = /* @__PURE__ */ defineOperation({
  operationId: "addLeadNote",
  summary: "Add an internal note to a lead (on its timeline, never sent)",
  description:
    "For what a colleague should know, also on a lead nobody has texted yet. Stored as a `LeadNoteAdded` event record (the text in `summary`, the author in `actorUserId` / `actorDisplayName`), so `POST /events/all/my` filtered by `leadId` lists it in order with the lead's messages, calls and assignments. A lead the caller may not read is a 404.",
  tag: "Leads",
  auth: "bearer",
  permission: "leads:write",
  params: LeadIdParams,
  body: AddNoteSchema,
  success: { status: 201, description: "The note", schema: LeadNoteSchema },
  problems: [400, 401, 403, 404, 413, 415, 429],
  example: { body: "Prefers a call after 5 pm; spouse decides." },
});

export const assignLead = /* @__PURE__ */ defineOperation({
  operationId: "assignLead",
  summary:
    "Assign, reassign or unassign a lead (an agent may claim an unassigned lead where the organization allows it)",
  description:
    "Owners, admins and API keys set any active user, or null to unassign. An agent may only set themselves on an unassigned lead, and only with `agentsMayClaim` (`PUT /routing/settings`); " +
    "of two claims at once one wins and the other is a 409. Recorded on the lead's timeline (`LeadAssigned` / `LeadUnassigned`) and delivered as the `lead.assigned` / `lead.unassigned` webhooks.",
  tag: "Leads",
  auth: "bearer",
  permission: "leads:write",
  params: LeadIdParams,
  body: AssignLeadSchema,
  success: { status: 200, description: "The lead with its new assignee", schema: LeadSchema },
  problems: [400, 401, 403, 404, 409, 413, 415, 429],
  example: { userId: "01JAGENT1" },
});
