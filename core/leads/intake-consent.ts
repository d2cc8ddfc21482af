import * as Consent from "#core/consent/index";
import { ConsentVerificationUnavailable, type ConsentBasis, type ConsentEvidence } from "#core/consent/index";
import { conditionally, table } from "#core/db/items";
import { LeadEntity } from "#core/db/entities/leads";
import { where } from "#core/db/expression";
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
  return {
    status: smsConsentStatus,
    optedOut: smsOptedOut,
    optOutAt: smsOptOutAt,
    optInAt: smsOptInAt,
    phoneNumber: smsConsentPhoneNumber ?? phone,
  };
}

/**
 * The consent the seller's certificates prove. Only a certificate TrustedForm verified for this lead's phone or
 * e-mail, or a LeadiD token Jornaya authenticated, opts the lead in; any other certified-form URL or token leaves it
 * `Unverified` (the outcome kept as evidence). A certificate API not answering throws (the queue retries; the lead
 * waits, `AwaitingConsentVerification`).
 */
export async function certificateConsent(
  organizationId: string,
  lead: Lead,
  phone: string | null,
  vendor: string | null,
  leadiDToken: string | null = null,
): Promise<IntakeConsent> {
  const none = { optedOut: false, optOutAt: null, optInAt: null, phoneNumber: phone };
  const url = lead.metadata.certifiedFormUrl;
  if (!phone) return { ...none, status: "NoPhone" };
  if (!url && !leadiDToken) return { ...none, status: "Unknown" };
  const recordedBy = lead.sourceId ? `source:${lead.sourceId}` : "system";
  const verified = (evidence: ConsentEvidence, reference: string, capturedAt: string | null): IntakeConsent => ({
    status: "OptedIn",
    optedOut: false,
    optOutAt: null,
    optInAt: capturedAt ?? lead.createdAt,
    phoneNumber: phone,
    verification: "Verified",
    basis: {
      kind: "Certificate",
      evidenceId: evidence.id,
      reference,
      at: evidence.certificate?.verifiedAt ?? evidence.at,
    },
  });
  let outcome: string | undefined;
  try {
    if (url) {
      const evidence = await Consent.verifyCertificate(organizationId, {
        leadId: lead.id,
        certificateUrl: url,
        phone,
        email: lead.contact.email,
        vendor,
        recordedBy,
      });
      if (evidence.outcome === "Verified" && evidence.certificate)
        return verified(evidence, evidence.certificate.certificateId, evidence.certificate.capturedAt);
      outcome = evidence.outcome ?? "NotFound";
    }
    if (leadiDToken) {
      const evidence = await Consent.verifyLeadiD(organizationId, { leadId: lead.id, token: leadiDToken, recordedBy });
      if (evidence?.outcome === "Verified") return verified(evidence, leadiDToken, null);
      outcome ??= evidence?.outcome ?? "NotConfigured";
    }
  } catch (error) {
    if (error instanceof ConsentVerificationUnavailable) await markAwaitingVerification(organizationId, lead.id);
    throw error;
  }
  return { ...none, status: "Unverified", verification: outcome ?? "NotFound" };
}

/** Says on the pending lead why it waits (GET /leads/{id} shows it) while the certificate API is retried. */
async function markAwaitingVerification(organizationId: string, leadId: string): Promise<void> {
  await conditionally(
    table.update(
      LeadEntity.update(
        { organizationId, id: leadId },
        { processingReason: AWAITING_VERIFICATION },
        { condition: where.equals("processingStatus", "Pending") },
      ),
    ),
  );
}

/** The processing reason of a lead waiting for a certificate API to answer. */
export const AWAITING_VERIFICATION = "AwaitingConsentVerification";
