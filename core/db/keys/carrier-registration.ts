import { org, type Key } from "#core/db/keys/shared";

/** Keys of the items core/carrier-registration owns (docs/data-model.md). */
export const carrierRegistrationKeys = {
  /** The organization's 10DLC brand (one per organization). */
  tenDlcBrand: (organizationId: string): Key => ({ pk: org(organizationId), sk: "TENDLC#BRAND" }),
  /** Its campaigns, each with the numbers attached to it. */
  tenDlcCampaign: (organizationId: string, campaignId: string): Key => ({
    pk: org(organizationId),
    sk: `TENDLC#CAMPAIGN#${campaignId}`,
  }),
  /**
   * A submission under way (stored before the carrier is asked, removed in the write of what it created): the brand's
   * one per organization, a campaign's by its id, so a retry after a crash in between asks the carrier for what the
   * first attempt created instead of creating (and paying for) another.
   */
  tenDlcBrandSubmission: (organizationId: string): Key => ({ pk: org(organizationId), sk: "TENDLC#SUBMISSION#BRAND" }),
  tenDlcCampaignSubmission: (organizationId: string, campaignId: string): Key => ({
    pk: org(organizationId),
    sk: `TENDLC#SUBMISSION#CAMPAIGN#${campaignId}`,
  }),
  /** A toll-free number's verification (one per number: its latest submission). */
  tollFreeVerification: (organizationId: string, phoneNumberId: string): Key => ({
    pk: org(organizationId),
    sk: `TOLLFREE#VERIFICATION#${phoneNumberId}`,
  }),
  tollFreeVerificationPrefix: (organizationId: string) => ({
    pk: org(organizationId),
    skPrefix: "TOLLFREE#VERIFICATION#",
  }),
  /** A toll-free verification's submission under way (as a brand's: stored first, removed with what it created). */
  tollFreeSubmission: (organizationId: string, phoneNumberId: string): Key => ({
    pk: org(organizationId),
    sk: `TOLLFREE#SUBMISSION#${phoneNumberId}`,
  }),
  /**
   * Registrations the poll asks about (not tenant data: its operator index across
   * organizations, one partition since registrations are few): a brand until decided, a
   * campaign until rejected (carriers suspend approved ones).
   */
  tenDlcPending: (organizationId: string, what: string): Key => ({
    pk: "TENDLC#PENDING",
    sk: `${organizationId}#${what}`,
  }),
  tenDlcPendingPartition: () => ({ pk: "TENDLC#PENDING" }),
  /**
   * Which organization a carrier's registration belongs to (not tenant data: a carrier's status callback names only
   * its own reference): the brand's reference, or a campaign's `registrationKey`, per carrier.
   */
  tenDlcReference: (provider: string, key: string): Key => ({
    pk: `TENDLC#REFERENCE#${provider}#${key}`,
    sk: "TENDLC#REFERENCE",
  }),
};
