import { config } from "#core/config";
import type { ProviderName, WebhookRequest } from "#core/providers/port";

/**
 * The 10DLC part of the carrier port: registering an organization's brand and
 * campaigns with The Campaign Registry through the carrier's ISV API, reading
 * their status back, and attaching numbers to a campaign. Carriers name the
 * same steps differently (Twilio: TrustHub bundles, A2P BrandRegistrations and
 * a Messaging Service's Usa2p campaign; Telnyx: `/v2/10dlc/brand`,
 * `/campaignBuilder`, `/phone_number_campaigns`); these types are ours.
 */

/** Where a registration stands: with the registry or the carriers, accepted for traffic, or refused. */
export type RegistrationStatus = "Pending" | "Approved" | "Rejected";

/** TCR entity types of a business (sole proprietors register through another flow, not offered here). */
export const brandEntityTypes = ["PRIVATE_PROFIT", "PUBLIC_PROFIT", "NON_PROFIT", "GOVERNMENT"] as const;

/** TCR campaign use cases offered to businesses (standard campaigns). */
export const campaignUseCases = [
  "MARKETING",
  "CUSTOMER_CARE",
  "ACCOUNT_NOTIFICATION",
  "DELIVERY_NOTIFICATION",
  "LOW_VOLUME",
  "MIXED",
  "2FA",
  "SECURITY_ALERT",
  "FRAUD_ALERT",
  "POLLING_VOTING",
  "PUBLIC_SERVICE_ANNOUNCEMENT",
  "HIGHER_EDUCATION",
] as const;

export type BrandDetails = {
  entityType: (typeof brandEntityTypes)[number];
  /** Legal name as the tax authority knows it (TCR checks it against the EIN). */
  legalName: string;
  displayName: string;
  ein: string;
  phone: string;
  email: string;
  website: string;
  street: string;
  city: string;
  state: string;
  postalCode: string;
  country: "US";
  vertical: string;
};

export type CampaignDetails = {
  useCase: (typeof campaignUseCases)[number];
  description: string;
  sampleMessages: string[];
  /** How a person opts in (TCR "message flow": where, what they are told, what they agree to). */
  messageFlow: string;
  helpMessage: string;
  optOutMessage: string;
  hasEmbeddedLinks: boolean;
  hasEmbeddedPhone: boolean;
};

/** A brand as the carrier reports it; `reference` is what later requests name it by. */
export type BrandReport = {
  reference: string;
  status: RegistrationStatus;
  failureReason?: string;
  vettingScore?: number;
};
export type CampaignReport = { reference: string; status: RegistrationStatus; failureReason?: string };

/** A number as the carrier holds it (Twilio needs its `PN…` sid, Telnyx its E.164). */
export type RegisteredNumber = { phoneNumber: string; providerNumberId?: string };

/**
 * Our reference of a submission (the id of the intent stored before the carrier is asked), carried where the carrier
 * keeps one (Telnyx brand `referenceId`) or can be matched by (the submission's own fields), so that a retry after a
 * crash between the carrier's answer and our write finds what the first attempt created instead of creating another.
 */
export type SubmissionReference = string;

export interface TenDlcRegistrar extends TollFreeVerifier {
  /** Submits the brand (billable at the registry: never repeat blindly). */
  registerBrand(details: BrandDetails, reference: SubmissionReference): Promise<BrandReport>;
  /** The brand an earlier submission with this reference created, if the carrier holds one. */
  findBrand(details: BrandDetails, reference: SubmissionReference): Promise<BrandReport | undefined>;
  fetchBrand(reference: string): Promise<BrandReport>;
  /** Submits a campaign of a brand the registry verified. */
  registerCampaign(
    brandReference: string,
    details: CampaignDetails,
    reference: SubmissionReference,
  ): Promise<CampaignReport>;
  /** The campaign an earlier submission with this reference created, if any; `known`: campaign references already stored. */
  findCampaign(
    brandReference: string,
    details: CampaignDetails,
    reference: SubmissionReference,
    known: string[],
  ): Promise<CampaignReport | undefined>;
  fetchCampaign(reference: string): Promise<CampaignReport>;
  /**
   * The registrations a status callback (its signature already checked) names: brand references and campaign keys
   * (`registrationKey`), to be read again at the carrier. Empty when the request is not one of the carrier's
   * registration events.
   */
  parseStatusCallback(request: WebhookRequest): string[];
  /** Puts a number on a campaign, so its A2P traffic is carried as the campaign's. */
  assignNumber(campaignReference: string, number: RegisteredNumber): Promise<void>;
}

/** Toll-free use cases offered (ours, each in both carriers' words: Twilio UseCaseCategories, Telnyx useCase). */
export const tollFreeUseCases = [
  "CUSTOMER_CARE",
  "ACCOUNT_NOTIFICATIONS",
  "DELIVERY_NOTIFICATIONS",
  "TWO_FACTOR_AUTHENTICATION",
  "MARKETING",
] as const;
/** How people opt in to a toll-free number's texts (both carriers' values). */
export const tollFreeOptInTypes = ["VERBAL", "WEB_FORM", "PAPER_FORM", "VIA_TEXT", "MOBILE_QR_CODE"] as const;
/** Estimated monthly messages (both carriers' picklist). */
export const tollFreeMessageVolumes = [
  "10",
  "100",
  "1,000",
  "10,000",
  "100,000",
  "250,000",
  "500,000",
  "750,000",
  "1,000,000",
  "5,000,000",
  "10,000,000+",
] as const;

/** What the business says of a toll-free number's traffic (the rest of a verification comes from its brand). */
export type TollFreeUse = {
  useCase: (typeof tollFreeUseCases)[number];
  useCaseSummary: string;
  productionMessageSample: string;
  optInType: (typeof tollFreeOptInTypes)[number];
  optInImageUrls: string[];
  messageVolume: (typeof tollFreeMessageVolumes)[number];
  contactFirstName: string;
  contactLastName: string;
  additionalInformation?: string | undefined;
};

/**
 * A toll-free verification as submitted: the number, the business (its 10DLC brand's details: the same legal
 * identity, EIN and address the carriers check) and what it sends.
 */
export type TollFreeDetails = TollFreeUse & {
  number: RegisteredNumber;
  business: BrandDetails;
  /** The carrier's reference of the organization's brand (Twilio: its `BN…`, whose customer profile is attached). */
  brandReference: string;
};

/** A verification as the carrier reports it; `editAllowed`: a rejected one may be corrected and submitted again. */
export type TollFreeReport = {
  reference: string;
  status: RegistrationStatus;
  failureReason?: string;
  errorCode?: string;
  editAllowed?: boolean;
};

/**
 * Toll-free verification (TFV) of a number: not TCR's 10DLC, a review by the toll-free messaging aggregator that the
 * carrier submits to (Twilio `/v1/Tollfree/Verifications`, Telnyx `/v2/messaging_tollfree/verification/requests`).
 */
export interface TollFreeVerifier {
  submitTollFree(details: TollFreeDetails, reference: SubmissionReference): Promise<TollFreeReport>;
  /**
   * The verification an earlier submission with this reference created for the number, if the carrier holds one;
   * `known`: the number's verifications already stored (a rejected one this submission replaces); `startedAt`: when
   * the submission began (ISO), for a carrier that keeps no reference of ours (Telnyx): an older request is not its.
   */
  findTollFree(
    details: TollFreeDetails,
    reference: SubmissionReference,
    known: string[],
    startedAt: string,
  ): Promise<TollFreeReport | undefined>;
  fetchTollFree(reference: string): Promise<TollFreeReport>;
}

/**
 * What a status callback names a campaign by: Twilio's events carry the Messaging Service (the `MG…` part of our
 * `MG…/QE…` reference), the others the campaign's own id (the whole reference).
 */
export const registrationKey = (reference: string): string => reference.split("/")[0]!;

/** Where a carrier posts its registration status events (`POST /webhooks/{provider}/registration`). */
export const registrationCallbackUrl = (provider: ProviderName): string =>
  `${config.publicBaseUrl.replace(/\/$/, "")}/webhooks/${provider}/registration`;
