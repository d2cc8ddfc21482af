import { Consent, ConsentVerificationUnavailable, type ConsentBasis, type ConsentEvidence } from "#core/consent/index";
import { conditionally, table } from "#core/db/items";
import { LeadEntity } from "#core/db/entities/leads";
import { where } from "#core/db/expression";
import { keys } from "#core/db/keys";
import type { Lead } from "#core/leads/index";

/** The consent lead processing decides and writes with the outcome (metadata's consent fields). */
export interface IntakeConsent {
  status: string;
  optedOut: boolean;
  optOutAt: string | null;
  optInAt: string | null;
  phoneNumber: string | null;
  /** What the certificate check concluded (absent when none ran). */
  verification?: string;
  /** What the lead's sends may rely on: written with the consent, only when the consent comes from this decision. */
  basis?: ConsentBasis;
}

/** The consent an inbound STOP or START recorded on the pending lead (core/leads/consent.ts), if any. */
export function recordedKeywordConsent(lead: Lead, phone: string | null): IntakeConsent | undefined {
  const { smsConsentStatus, smsOptedOut, smsOptOutAt, smsOptInAt, smsConsentPhoneNumber } = lead.metadata;
  if (smsConsentStatus !== "OptedIn" && smsConsentStatus !== "OptedOut") return undefined;
  return { status: smsConsentStatus, optedOut: smsOptedOut, optOutAt: smsOptOutAt, optInAt: smsOptInAt, phoneNumber: smsConsentPhoneNumber ?? phone };
}

/**
 * The consent the seller's certificate proves. Only a certificate TrustedForm verified for this lead's phone or
 * e-mail opts the lead in; any other certified-form URL leaves it `Unverified` (its outcome kept as evidence).
 * TrustedForm not answering throws (the queue retries; the lead waits, `AwaitingConsentVerification`).
 */
export async function certificateConsent(organizationId: string, lead: Lead, phone: string | null, vendor: string | null): Promise<IntakeConsent> {
  const none = { optedOut: false, optOutAt: null, optInAt: null, phoneNumber: phone };
  const url = lead.metadata.certifiedFormUrl;
  if (!phone) return { ...none, status: "NoPhone" };
  if (!url) return { ...none, status: "Unknown" };
  let evidence: ConsentEvidence;
  try {
    evidence = await Consent.verifyCertificate(organizationId, {
      leadId: lead.id, certificateUrl: url, phone, email: lead.contact.email, vendor,
      recordedBy: lead.sourceId ? `source:${lead.sourceId}` : "system",
    });
  } catch (error) {
    if (error instanceof ConsentVerificationUnavailable) await markAwaitingVerification(organizationId, lead.id);
    throw error;
  }
  const certificate = evidence.certificate;
  if (evidence.outcome !== "Verified" || !certificate) return { ...none, status: "Unverified", verification: evidence.outcome ?? "NotFound" };
  return {
    status: "OptedIn",
    optedOut: false,
    optOutAt: null,
    optInAt: certificate.capturedAt ?? lead.createdAt,
    phoneNumber: phone,
    verification: "Verified",
    basis: { kind: "Certificate", evidenceId: evidence.id, reference: certificate.certificateId, at: certificate.verifiedAt },
  };
}

/** Says on the pending lead why it waits (GET /leads/{id} shows it) while TrustedForm is retried. */
async function markAwaitingVerification(organizationId: string, leadId: string): Promise<void> {
  await conditionally(
    table.update(LeadEntity.update({ organizationId, id: leadId }, { processingReason: AWAITING_VERIFICATION }, { condition: where.equals("processingStatus", "Pending") })),
  );
}

/** The processing reason of a lead waiting for TrustedForm to answer. */
export const AWAITING_VERIFICATION = "AwaitingConsentVerification";

