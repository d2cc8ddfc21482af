/**
 * Lead field paths used by conditions (`contact.firstName`), templates (`{{contact.firstName}}`) and the UpdateLead
 * action. The first segment after the root must be a field of spec 2.4; fields holding objects accept deeper segments.
 */

type FieldKind = "value" | "object";

const value = "value" as const;
const nested = "object" as const;

/** Fields of a lead (spec 2.4) by root; `object` fields accept nested segments (`contact.streetAddress.city`). */
export const leadFields = {
  contact: { firstName: value, lastName: value, email: value, phone: nested, streetAddress: nested },
  metadata: {
    certifiedFormUrl: value,
    utmSource: value,
    utmMedium: value,
    utmCampaign: value,
    utmTerm: value,
    utmContent: value,
    referrer: value,
    landingPage: value,
    subId: value,
    pubId: value,
    ipAddress: value,
    userAgent: value,
    externalId: value,
    sellerLeadId: value,
    createdAt: value,
    price: value,
    directPostPrice: value,
    product: value,
    vertical: value,
    complianceStatus: value,
    complianceBlockedReason: value,
    sourceMetadata: nested,
    assignedPhoneNumberId: value,
    smsConsentStatus: value,
    smsOptedOut: value,
    smsOptOutAt: value,
    smsOptInAt: value,
    smsHelpRequestedAt: value,
    smsConsentPhoneNumber: value,
    userId: value,
    businessId: value,
  },
  customer: {
    gender: nested,
    height: value,
    weight: value,
    income: value,
    monthsAtResidence: value,
    creditScore: value,
    numberOfDependents: value,
    birthDate: value,
    maritalStatus: nested,
    isHomeowner: value,
    hasBankruptcy: value,
    hasMedicalCondition: value,
    employmentType: nested,
  },
} as const satisfies Record<string, Record<string, FieldKind>>;

/** Extra template roots beside the lead fields. */
const templateOnlyFields = {
  lead: { id: value, createdAt: value },
  // The organization's profile (`PUT /organizations/me`); phone and website are empty when not given.
  organization: { name: value, phone: value, website: value },
  // The lead's assignee (core/automations/runs/evaluate.ts `assignedUserValues`); empty when unassigned.
  assignedUser: { firstName: value, name: value, phone: value },
} as const satisfies Record<string, Record<string, FieldKind>>;

/** Fields an UpdateLead action may write; identity, consent and compliance fields change only through their own flows. */
const writableFields: Record<string, ReadonlySet<string>> = {
  contact: new Set(["firstName", "lastName", "email", "streetAddress"]),
  customer: new Set(Object.keys(leadFields.customer)),
  metadata: new Set(["product", "vertical", "sourceMetadata"]),
};

const segmentPattern = /^[A-Za-z0-9_-]+$/;

type FieldTable = Record<string, Record<string, FieldKind>>;

function checkPath(path: string, table: FieldTable): string | undefined {
  const segments = path.split(".");
  const [root, field, ...rest] = segments;
  const roots = Object.keys(table);
  if (segments.some((segment) => !segmentPattern.test(segment))) {
    return `"${path}" is not a field path; use dot-separated names such as "contact.firstName".`;
  }
  const fields = root === undefined ? undefined : table[root];
  if (!fields) return `"${path}" must start with one of ${roots.map((name) => `"${name}."`).join(", ")}.`;
  if (field === undefined) return `"${path}" must name a field, such as "${root}.${Object.keys(fields)[0]}".`;
  const kind = fields[field];
  if (!kind) return `"${root}.${field}" is not a lead field; ${root} fields are ${Object.keys(fields).join(", ")}.`;
  if (kind === "value" && rest.length > 0) return `"${root}.${field}" holds a single value and has no nested fields.`;
  return undefined;
}

/** Why `path` is not a readable lead field (`contact.*`, `metadata.*`, `customer.*`), or undefined when it is. */
export function leadFieldPathProblem(path: string): string | undefined {
  return checkPath(path, leadFields);
}

/** Why `path` cannot be used in a template placeholder, or undefined when it can. */
export function templatePathProblem(path: string): string | undefined {
  return checkPath(path, { ...leadFields, ...templateOnlyFields });
}

/** Why an UpdateLead action cannot write `path`, or undefined when it can. */
export function writableFieldPathProblem(path: string): string | undefined {
  const problem = leadFieldPathProblem(path);
  if (problem) return problem;
  const [root = "", field = ""] = path.split(".");
  if (!writableFields[root]?.has(field)) {
    return `"${root}.${field}" cannot be changed by an automation; writable fields are contact.firstName, contact.lastName, contact.email, contact.streetAddress, customer.*, metadata.product, metadata.vertical and metadata.sourceMetadata.*.`;
  }
  return undefined;
}
