import { defineEntity } from "#core/db/entity";
import { carrierRegistrationKeys } from "#core/db/keys/carrier-registration";
import { org } from "#core/db/keys/shared";

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

/** The TenDlcBrand entity: the organization's 10DLC brand (one per organization), rewritten whole as it is decided. */
export const TenDlcBrandEntity = defineEntity({
  name: "TenDlcBrand",
  attributes: [],
  key: ({ organizationId }: { organizationId: string }) => carrierRegistrationKeys.tenDlcBrand(organizationId),
  identity: ({ organizationId }: { organizationId: string }) => ({ organizationId }),
  indexes: {},
});

type CampaignIdentity = { organizationId: string; id: string };

/** The TenDlcCampaign entity: a campaign of the brand, with the numbers attached to it (a string set). */
export const TenDlcCampaignEntity = defineEntity({
  name: "TenDlcCampaign",
  attributes: [],
  key: ({ organizationId, id }: CampaignIdentity) => carrierRegistrationKeys.tenDlcCampaign(organizationId, id),
  identity: ({ organizationId, id }: CampaignIdentity) => ({ organizationId, id }),
  collection: {
    name: "byOrganization",
    pk: (campaign: CampaignIdentity) => org(campaign.organizationId),
    sk: (campaign: CampaignIdentity) => carrierRegistrationKeys.tenDlcCampaign("", campaign.id ?? "").sk,
  },
  indexes: {},
});

type PendingIdentity = { organizationId: string; what: string };

/**
 * The TenDlcPending entity: a registration the poll asks about (`BRAND`, `CAMPAIGN#<id>`, `TOLLFREE#<number>`). Not tenant data: the
 * poll's operator partition across organizations, read whole.
 */
export const TenDlcPendingEntity = defineEntity({
  name: "TenDlcPending",
  attributes: [],
  key: ({ organizationId, what }: PendingIdentity) => carrierRegistrationKeys.tenDlcPending(organizationId, what),
  identity: ({ organizationId, what }: PendingIdentity) => ({ organizationId, what }),
  collection: {
    name: "pending",
    pk: () => carrierRegistrationKeys.tenDlcPendingPartition().pk,
    sk: (pending: PendingIdentity) => carrierRegistrationKeys.tenDlcPending(pending.organizationId, pending.what).sk,
  },
  indexes: {},
});

type ReferenceIdentity = { provider: string; key: string };

/** The TenDlcReference entity: which organization a carrier's brand or campaign reference belongs to (its callbacks). */
export const TenDlcReferenceEntity = defineEntity({
  name: "TenDlcReference",
  attributes: [],
  key: ({ provider, key }: ReferenceIdentity) => carrierRegistrationKeys.tenDlcReference(provider, key),
  identity: ({ provider, key }: ReferenceIdentity) => ({ provider, key }),
  indexes: {},
});
