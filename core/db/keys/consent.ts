import { org, type Key } from "#core/db/keys/shared";

/** Keys of the items core/consent owns (docs/data-model.md). */
export const consentKeys = {
  /** The organization's consent-verification accounts (TrustedForm API key, Jornaya account); the item holds the secrets. */
  consentSettings: (organizationId: string): Key => ({ pk: org(organizationId), sk: "SETTINGS#CONSENT" }),
  /**
   * One piece of a lead's consent evidence (its verified certificate, a consent record the business posted, an
   * inbound opt-in, an opt-out); the lead's evidence is one key range, oldest first by ULID.
   */
  consentEvidence: (organizationId: string, leadId: string, evidenceId: string): Key => ({ pk: org(organizationId), sk: `CONSENT#${leadId}#${evidenceId}` }),
  consentEvidencePrefix: (organizationId: string, leadId: string) => ({ pk: org(organizationId), skPrefix: `CONSENT#${leadId}#` }),
};
