import * as v from "valibot";
import { prefixItems } from "#core/db/query";
import { table } from "#core/db/items";
import { entities, keys } from "#core/db/keys";
import { newId, timestamp } from "#core/shared/ids";

/** How a lead's consent to be texted and called was established, or lost. */
export const evidenceKinds = [
  "Certificate",
  "LeadiDToken",
  "ConsentRecord",
  "InboundOptIn",
  "OptOut",
  "RevocationFlagged",
] as const;
/** What a certificate check concluded; `NotConfigured` when the organization has no account to check it with. */
export const certificateOutcomes = [
  "Verified",
  "Expired",
  "PhoneMismatch",
  "NotFound",
  "Refused",
  "NotConfigured",
  "Unavailable",
] as const;

const nullableString = v.nullable(v.string());

export const CertificateSchema = v.object({
  provider: v.picklist(["TrustedForm"]),
  certificateId: v.string(),
  certificateUrl: v.string(),
  pageUrl: nullableString,
  consentLanguage: nullableString,
  capturedAt: nullableString,
  expiresAt: nullableString,
  retainedUntil: nullableString,
  phoneMatched: v.nullable(v.boolean()),
  emailMatched: v.nullable(v.boolean()),
  verifiedAt: v.string(),
});

/** A consent the business itself recorded (a signed form, a recorded call), with what proves it. */
export const ConsentRecordRequestSchema = v.strictObject({
  capturedAt: v.pipe(timestamp, v.description("When the consumer gave consent.")),
  consentLanguage: v.pipe(
    v.string(),
    v.trim(),
    v.minLength(10),
    v.maxLength(5000),
    v.description("The disclosure the consumer agreed to, word for word."),
  ),
  channel: v.picklist(["WebForm", "Paper", "Phone", "InPerson", "Other"]),
  evidenceUrl: v.nullish(
    v.pipe(
      v.string(),
      v.url("Must be an absolute URL."),
      v.maxLength(2000),
      v.description("Where the proof is kept (a recording, a scanned form)."),
    ),
  ),
  pageUrl: v.nullish(v.pipe(v.string(), v.url("Must be an absolute URL."), v.maxLength(2000))),
  ipAddress: v.nullish(v.pipe(v.string(), v.maxLength(64))),
});
export type ConsentRecordRequest = v.InferOutput<typeof ConsentRecordRequestSchema>;

export const ConsentEvidenceSchema = v.object({
  id: v.string(),
  leadId: v.string(),
  kind: v.picklist(evidenceKinds),
  at: timestamp,
  /** Certificates only: what the check concluded, and why when not verified. */
  outcome: v.nullable(v.picklist(certificateOutcomes)),
  reason: nullableString,
  certificate: v.nullable(CertificateSchema),
  record: v.nullable(
    v.object({
      ...ConsentRecordRequestSchema.entries,
      evidenceUrl: nullableString,
      pageUrl: nullableString,
      ipAddress: nullableString,
    }),
  ),
  /** Who recorded it: a user, a source, the contact (inbound keyword), the system. */
  recordedBy: v.string(),
  /** Inbound keywords and free text: what the contact wrote. */
  text: nullableString,
});
export type ConsentEvidence = v.InferOutput<typeof ConsentEvidenceSchema>;

/** The certificate check and the LeadiD token are one item each per lead (a retry replaces it); other evidence accumulates by ULID. */
const FIXED_IDS: Partial<Record<(typeof evidenceKinds)[number], string>> = {
  Certificate: "CERTIFICATE",
  LeadiDToken: "LEADID",
};

export async function add(
  organizationId: string,
  input: Omit<ConsentEvidence, "id"> & { id?: string },
): Promise<ConsentEvidence> {
  const evidence: ConsentEvidence = v.parse(ConsentEvidenceSchema, {
    ...input,
    id: input.id ?? FIXED_IDS[input.kind] ?? newId(),
  });
  await table.put({
    Item: {
      ...keys.consentEvidence(organizationId, evidence.leadId, evidence.id),
      entity: entities.consentEvidence,
      organizationId,
      ...evidence,
    },
  });
  return evidence;
}

/** The lead's evidence, in the order it was recorded. */
export async function of(organizationId: string, leadId: string): Promise<ConsentEvidence[]> {
  const { skPrefix } = keys.consentEvidencePrefix(organizationId, leadId);
  const items = await prefixItems(organizationId, skPrefix, { ConsistentRead: true });
  return items.map((item) => v.parse(ConsentEvidenceSchema, item)).sort((a, b) => a.at.localeCompare(b.at));
}
