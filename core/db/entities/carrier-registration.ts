import { defineEntity } from "#core/db/entity";
import { carrierRegistrationKeys } from "#core/db/keys/carrier-registration";

/** What identifies a toll-free verification: the organization and the number it verifies (one per number). */
type VerificationIdentity = { organizationId: string; phoneNumberId: string };

/**
 * The TollFreeVerification entity (docs/data-model.md): a toll-free number's verification at its carrier, under its
 * organization, read by key or as the organization's `TOLLFREE#VERIFICATION#` range (the registration overview).
 */
export const TollFreeVerificationEntity = defineEntity({
  name: "TollFreeVerification",
  attributes: [],
  key: ({ organizationId, phoneNumberId }: VerificationIdentity) =>
    carrierRegistrationKeys.tollFreeVerification(organizationId, phoneNumberId),
  identity: ({ organizationId, phoneNumberId }: VerificationIdentity & Record<string, unknown>) => ({
    organizationId,
    phoneNumberId,
  }),
  indexes: {},
});
