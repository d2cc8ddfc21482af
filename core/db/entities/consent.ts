import { defineEntity } from "#core/db/entity";
import { consentKeys } from "#core/db/keys/consent";

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
