import * as v from "valibot";
import { timestamp } from "#core/shared/ids";

// The request schemas live apart (they validate phones); re-exported so `Leads` and callers keep one name for both.
export { IntakeBodySchema, IntakeQuerySchema, LeadWriteSchema, type LeadWrite } from "#core/leads/write-schemas";

/** A lead's processing outcome (spec 3: separate from automation runs and message delivery). */
export const processingStatuses = ["Pending", "Processed", "Duplicate", "Rejected", "Failed"] as const;
export type ProcessingStatus = (typeof processingStatuses)[number];

/** Query of `POST /leads/intake` and `POST /leads`: only the optional source credentials. */
export const SourceCredentialQuerySchema = v.strictObject({
  sourceId: v.optional(v.pipe(v.string(), v.description("The source identifier; or the X-Source-Id header."))),
  apiKey: v.optional(v.pipe(v.string(), v.description("The source key; or the X-Source-Key header."))),
});

const nullableString = v.nullable(v.string());
const valueObject = v.nullable(v.object({ value: v.string() }));

/**
 * How a lead came to its assignee (docs/routing.md): a routing rule, a person, an agent claiming it, an automation,
 * or the routing fallback to an owner when nobody of the rules could take it (`ruleId`: the rule matched, if any).
 */
export const assignmentMethods = ["rule", "manual", "claim", "automation", "fallback"] as const;

/**
 * Who works the lead (issue 28). Optional with defaults, so leads stored before assignment existed read as
 * unassigned; `needsAttention` is raised when routing rules exist but nobody could take the lead.
 */
const LeadAssignmentFields = {
  assignedUserId: v.pipe(
    v.optional(nullableString, null),
    v.description("The user who works the lead; null: unassigned."),
  ),
  assignedAt: v.optional(v.nullable(timestamp), null),
  assignedBy: v.optional(
    v.nullable(
      v.object({
        method: v.picklist(assignmentMethods),
        ruleId: nullableString,
        userId: v.pipe(nullableString, v.description("Who assigned it (manual, claim).")),
      }),
    ),
    null,
  ),
  needsAttention: v.pipe(
    v.optional(v.boolean(), false),
    v.description("Routing found nobody to take the lead (no rule matched, or nobody in the pool could)."),
  ),
  offeredTo: v.pipe(
    v.optional(v.array(v.string()), []),
    v.description(
      "A first-to-claim rule offered the lead to these users: the first of them to claim it (PUT /leads/{id}/assignee) gets it.",
    ),
  ),
};

/** The lead as every read answers it (spec 2.4, plus its processing outcome and source). */
export const LeadSchema = v.object({
  id: v.string(),
  createdAt: timestamp,
  modifiedAt: v.nullable(timestamp),
  sourceId: nullableString,
  processingStatus: v.picklist(processingStatuses),
  processingReason: nullableString,
  duplicateOfLeadId: nullableString,
  processedAt: v.nullable(timestamp),
  ...LeadAssignmentFields,
  metadata: v.object({
    certifiedFormUrl: nullableString,
    utmSource: nullableString,
    utmMedium: nullableString,
    utmCampaign: nullableString,
    utmTerm: nullableString,
    utmContent: nullableString,
    referrer: nullableString,
    landingPage: nullableString,
    subId: nullableString,
    pubId: nullableString,
    ipAddress: nullableString,
    userAgent: nullableString,
    externalId: nullableString,
    sellerLeadId: nullableString,
    createdAt: v.string(),
    price: nullableString,
    directPostPrice: nullableString,
    product: nullableString,
    vertical: nullableString,
    complianceStatus: nullableString,
    complianceBlockedReason: nullableString,
    sourceMetadata: v.nullable(v.record(v.string(), v.nullable(v.union([v.string(), v.number(), v.boolean()])))),
    assignedPhoneNumberId: nullableString,
    smsConsentStatus: v.pipe(
      nullableString,
      v.description(
        "`OptedIn` (a verified certificate, a consent record of the business, or the contact's START), `OptedOut`, `Unverified` (a certified-form URL that could not be verified), `Unknown` (no consent given), `NoPhone`; null until processed.",
      ),
    ),
    smsOptedOut: v.boolean(),
    smsOptOutAt: v.nullable(timestamp),
    smsOptInAt: v.nullable(timestamp),
    smsHelpRequestedAt: v.nullable(timestamp),
    smsConsentPhoneNumber: nullableString,
    userId: nullableString,
    businessId: v.string(),
  }),
  contact: v.object({
    firstName: nullableString,
    lastName: nullableString,
    streetAddress: v.nullable(
      v.object({
        line1: nullableString,
        line2: nullableString,
        city: nullableString,
        state: nullableString,
        postalCode: nullableString,
      }),
    ),
    phone: v.nullable(v.object({ number: v.string(), type: nullableString, countryCode: nullableString })),
    email: nullableString,
  }),
  customer: v.object({
    gender: valueObject,
    height: v.nullable(v.union([v.string(), v.number()])),
    weight: v.nullable(v.union([v.string(), v.number()])),
    income: v.nullable(v.union([v.string(), v.number()])),
    monthsAtResidence: v.nullable(v.number()),
    creditScore: v.nullable(v.number()),
    numberOfDependents: v.nullable(v.number()),
    birthDate: nullableString,
    maritalStatus: valueObject,
    isHomeowner: v.nullable(v.boolean()),
    hasBankruptcy: v.nullable(v.boolean()),
    hasMedicalCondition: v.nullable(v.boolean()),
    employmentType: valueObject,
  }),
});
export type Lead = v.InferOutput<typeof LeadSchema>;

export const LeadIdParams = v.object({ id: v.pipe(v.string(), v.minLength(1), v.maxLength(64)) });

/** Body of `PUT /leads/{id}/assignee`. */
export const AssignLeadSchema = v.strictObject({
  userId: v.pipe(
    v.nullable(v.pipe(v.string(), v.minLength(1), v.maxLength(64))),
    v.description("The user who takes the lead; null unassigns it."),
  ),
});
export type AssignLead = v.InferOutput<typeof AssignLeadSchema>;
