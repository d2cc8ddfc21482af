import { defineEntity } from "#core/db/entity";
import { copyKey, org, type Key } from "#core/db/keys/shared";

/** Keys of the items core/consent owns (docs/data-model.md). */
export const consentKeys = {
  /**
   * One of the copies (`copyKey`) of the organization's consent settings: its consent-verification accounts
   * (TrustedForm API key, Jornaya account; the item holds the secrets) and the frequency caps every send reads (issue 27).
   */
  consentSettings: (organizationId: string, copy: number): Key => copyKey(organizationId, "SETTINGS#CONSENT", copy),
  /**
   * One piece of a lead's consent evidence (its verified certificate, a consent record the business posted, an
   * inbound opt-in, an opt-out); the lead's evidence is one key range, oldest first by ULID.
   */
  consentEvidence: (organizationId: string, leadId: string, evidenceId: string): Key => ({
    pk: org(organizationId),
    sk: `CONSENT#${leadId}#${evidenceId}`,
  }),
  consentEvidencePrefix: (organizationId: string, leadId: string) => ({
    pk: org(organizationId),
    skPrefix: `CONSENT#${leadId}#`,
  }),
  /** A recipient's texts (or calls) of the last 24 hours, one item per channel and number: frequency caps are claimed on it. */
  contactAttempts: (organizationId: string, channel: "Sms" | "Call", phoneNumber: string): Key => ({
    pk: org(organizationId),
    sk: `CONTACTS#${channel}#${phoneNumber}`,
  }),
};

/** Whose contacts an item counts: one recipient's number on one channel, under the organization. */
export type ContactAttemptsIdentity = { organizationId: string; channel: "Sms" | "Call"; to: string };

/**
 * The ContactAttempts entity (docs/data-model.md): one item per channel and recipient number, holding the attempts
 * of the last 24 hours (`attempts`: id → epoch ms) and a `version` every claim writes on condition, so frequency caps
 * are claimed exactly. It expires a day after its last attempt. No secondary index.
 */
export const ContactAttemptsEntity = defineEntity({
  name: "ContactAttempts",
  attributes: [],
  key: ({ organizationId, channel, to }: ContactAttemptsIdentity) =>
    consentKeys.contactAttempts(organizationId, channel, to),
  identity: ({ organizationId, channel, to }: ContactAttemptsIdentity) => ({ organizationId, channel, to }),
  indexes: {},
});
