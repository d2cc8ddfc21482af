/**
 * Consent you can prove (docs/compliance.md): the organization's certificate-API accounts, the evidence kept per lead
 * (a verified TrustedForm certificate, consent records the business posts, inbound opt-ins and opt-outs), and the
 * consent basis every automated send is tied to. Knows nothing of leads or messages: they ask it.
 */
import * as ConsentSettingsStore from "#core/consent/settings";
import * as Evidence from "#core/consent/evidence";
import { type ConsentEvidence } from "#core/consent/evidence";
import { claimCertificate } from "#core/consent/trustedform";
import { authenticateLeadiD } from "#core/consent/jornaya";

export {
  type ConsentEvidence,
  type ConsentRecordRequest,
  ConsentRecordRequestSchema,
  ConsentEvidenceSchema,
} from "#core/consent/evidence";
export { ConsentVerificationUnavailable } from "#core/consent/trustedform";
export * from "#core/consent/basis";

export interface CertificateSubject {
  leadId: string;
  certificateUrl: string;
  phone: string | null;
  email: string | null;
  /** Who sold the lead (its source's name), stored with the claim. */
  vendor: string | null;
  recordedBy: string;
}

/**
 * Claims the lead's certificate with the organization's TrustedForm account and keeps what it proves (or why it
 * does not) as the lead's certificate evidence. Throws ConsentVerificationUnavailable when TrustedForm does not
 * answer: the caller retries, nothing is recorded.
 */
export async function verifyCertificate(organizationId: string, subject: CertificateSubject): Promise<ConsentEvidence> {
  const { trustedFormApiKey } = await ConsentSettingsStore.credentials(organizationId);
  const base = {
    leadId: subject.leadId,
    kind: "Certificate" as const,
    at: new Date().toISOString(),
    record: null,
    recordedBy: subject.recordedBy,
    text: null,
  };
  if (!trustedFormApiKey) {
    return Evidence.add(organizationId, {
      ...base,
      outcome: "NotConfigured",
      reason: "The organization has no TrustedForm account configured (PUT /consent/settings).",
      certificate: null,
    });
  }
  const check = await claimCertificate({
    certificateUrl: subject.certificateUrl,
    apiKey: trustedFormApiKey,
    phone: subject.phone,
    email: subject.email,
    reference: subject.leadId,
    vendor: subject.vendor,
  });
  return check.outcome === "Verified"
    ? Evidence.add(organizationId, { ...base, outcome: "Verified", reason: null, certificate: check.certificate })
    : Evidence.add(organizationId, { ...base, outcome: check.outcome, reason: check.reason, certificate: null });
}

/** Records that verification could not happen before the lead had to be settled (the outage outlasted the retries). */
export async function verificationUnavailable(
  organizationId: string,
  leadId: string,
  reason: string,
): Promise<ConsentEvidence> {
  return Evidence.add(organizationId, {
    leadId,
    kind: "Certificate",
    at: new Date().toISOString(),
    outcome: "Unavailable",
    reason,
    certificate: null,
    record: null,
    recordedBy: "system",
    text: null,
  });
}

/**
 * Keeps a Jornaya LeadiD token the seller sent as the lead's evidence, as received: `verifyLeadiD` replaces it with
 * Jornaya's answer where the organization has a Jornaya account.
 */
export async function keepLeadiDToken(
  organizationId: string,
  leadId: string,
  token: string,
  recordedBy: string,
): Promise<ConsentEvidence> {
  return Evidence.add(organizationId, {
    leadId,
    kind: "LeadiDToken",
    at: new Date().toISOString(),
    outcome: null,
    reason: "Stored, not verified: verified only where the organization has a Jornaya account (PUT /consent/settings).",
    certificate: null,
    record: null,
    recordedBy,
    text: token,
  });
}

/**
 * Authenticates the lead's LeadiD token with the organization's Jornaya account and keeps the answer as the lead's
 * LeadiD evidence. Undefined when the organization has no Jornaya account (the token stays stored, not verified).
 * Throws ConsentVerificationUnavailable when Jornaya does not answer: the caller retries, nothing is recorded.
 */
export async function verifyLeadiD(
  organizationId: string,
  subject: { leadId: string; token: string; recordedBy: string },
): Promise<ConsentEvidence | undefined> {
  const { jornayaAccountCode } = await ConsentSettingsStore.credentials(organizationId);
  if (!jornayaAccountCode) return undefined;
  const check = await authenticateLeadiD({ token: subject.token, accountCode: jornayaAccountCode });
  return Evidence.add(organizationId, {
    leadId: subject.leadId,
    kind: "LeadiDToken",
    at: new Date().toISOString(),
    outcome: check.outcome,
    reason: check.outcome === "Verified" ? null : check.reason,
    certificate: null,
    record: null,
    recordedBy: subject.recordedBy,
    text: subject.token,
  });
}

export const evidenceOf = Evidence.of;

export const addEvidence = Evidence.add;
