import * as v from "valibot";
import {
  brandEntityTypes,
  campaignUseCases,
  tollFreeMessageVolumes,
  tollFreeOptInTypes,
  tollFreeUseCases,
} from "#core/providers/registration";
import { timestamp } from "#core/shared/ids";
import { PhoneNumberInput } from "#core/shared/phone-input";
import { maxChars } from "#core/shared/validation";

const text = (min: number, max: number, hint: string) =>
  v.pipe(v.string(), v.trim(), v.minLength(min, `At least ${min} characters: ${hint}`), maxChars(max));

/** Body of `POST /carrier-registration/brand`: the business as The Campaign Registry checks it. */
export const BrandRequestSchema = v.strictObject({
  entityType: v.picklist(brandEntityTypes, `One of: ${brandEntityTypes.join(", ")}.`),
  legalName: text(2, 255, "the legal name registered with the EIN."),
  displayName: text(2, 255, "the name people know the business by."),
  ein: v.pipe(v.string(), v.trim(), v.regex(/^\d{2}-?\d{7}$/, "A US EIN: nine digits, as 12-3456789.")),
  phone: PhoneNumberInput,
  email: v.pipe(v.string(), v.trim(), v.email("A valid email address."), maxChars(255)),
  website: v.pipe(v.string(), v.trim(), v.url("A full URL (https://…)."), maxChars(255)),
  street: text(2, 100, "the street address."),
  city: text(2, 100, "the city."),
  state: v.pipe(v.string(), v.trim(), v.toUpperCase(), v.regex(/^[A-Z]{2}$/, "A two-letter state code.")),
  postalCode: v.pipe(v.string(), v.trim(), v.regex(/^\d{5}(?:-\d{4})?$/, "A US ZIP code.")),
  country: v.optional(v.literal("US", "US businesses only for now."), "US"),
  vertical: text(2, 50, "the industry (TCR vertical, e.g. REAL_ESTATE, INSURANCE, PROFESSIONAL)."),
});
export type BrandRequest = v.InferOutput<typeof BrandRequestSchema>;

const registrationStatus = v.picklist(["Pending", "Approved", "Rejected"]);

export const BrandSchema = v.object({
  entityType: v.picklist(brandEntityTypes),
  legalName: v.string(),
  displayName: v.string(),
  ein: v.string(),
  phone: v.string(),
  email: v.string(),
  website: v.string(),
  street: v.string(),
  city: v.string(),
  state: v.string(),
  postalCode: v.string(),
  country: v.string(),
  vertical: v.string(),
  provider: v.string(),
  /** The carrier's id of the brand (Telnyx brandId, Twilio BN…). */
  providerBrandId: v.string(),
  status: registrationStatus,
  failureReason: v.nullable(v.string()),
  /** The external vetting score (0-100), once vetted: it sets the brand's throughput at the carriers. */
  vettingScore: v.nullable(v.number()),
  submittedAt: timestamp,
  decidedAt: v.nullable(timestamp),
  checkedAt: v.nullable(timestamp),
});
export type Brand = v.InferOutput<typeof BrandSchema>;

/** Body of `POST /carrier-registration/campaigns`: what the business sends, to whom, and how people opt in and out. */
export const CampaignRequestSchema = v.strictObject({
  useCase: v.picklist(campaignUseCases, `One of: ${campaignUseCases.join(", ")}.`),
  description: text(40, 4096, "what the campaign's messages are for."),
  sampleMessages: v.pipe(
    v.array(text(20, 1024, "a real example, with the business's name and opt-out language where it applies.")),
    v.minLength(2, "At least two sample messages."),
    v.maxLength(5, "At most five sample messages."),
  ),
  messageFlow: text(40, 2048, "how and where people opt in, and what they agree to."),
  helpMessage: text(20, 255, "the answer to HELP: the business's name and how to reach it."),
  optOutMessage: text(20, 255, "the answer to STOP: the business's name and that no more messages will come."),
  hasEmbeddedLinks: v.optional(v.boolean(), false),
  hasEmbeddedPhone: v.optional(v.boolean(), false),
});
export type CampaignRequest = v.InferOutput<typeof CampaignRequestSchema>;

export const CampaignSchema = v.object({
  id: v.string(),
  useCase: v.picklist(campaignUseCases),
  description: v.string(),
  sampleMessages: v.array(v.string()),
  messageFlow: v.string(),
  helpMessage: v.string(),
  optOutMessage: v.string(),
  hasEmbeddedLinks: v.boolean(),
  hasEmbeddedPhone: v.boolean(),
  provider: v.string(),
  providerCampaignId: v.string(),
  status: registrationStatus,
  failureReason: v.nullable(v.string()),
  /** The organization's numbers attached to the campaign. */
  phoneNumberIds: v.array(v.string()),
  /** Opt-outs against the campaign's numbers' outcomes over the last 24 hours (number health); optOutRate null without outcomes. */
  optOuts: v.object({ finalOutcomes: v.number(), optOuts: v.number(), optOutRate: v.nullable(v.number()) }),
  submittedAt: timestamp,
  decidedAt: v.nullable(timestamp),
  checkedAt: v.nullable(timestamp),
});
export type Campaign = v.InferOutput<typeof CampaignSchema>;

export const CampaignsSchema = v.object({ items: v.array(CampaignSchema) });

/**
 * Body of `POST /phone-numbers/{phoneNumberId}/toll-free-verification`: what a toll-free number sends and how people
 * opt in. The business (legal name, EIN, address, website, email, phone) is the organization's brand's.
 */
export const TollFreeVerificationRequestSchema = v.strictObject({
  useCase: v.picklist(tollFreeUseCases, `One of: ${tollFreeUseCases.join(", ")}.`),
  useCaseSummary: text(40, 1000, "what the number's messages are for and who receives them."),
  productionMessageSample: text(20, 1000, "a real message, with the business's name and opt-out language."),
  optInType: v.picklist(tollFreeOptInTypes, `One of: ${tollFreeOptInTypes.join(", ")}.`),
  optInImageUrls: v.pipe(
    v.array(v.pipe(v.string(), v.trim(), v.url("A full URL (https://…) of a public image."), maxChars(500))),
    v.minLength(1, "At least one public image or page showing how people opt in."),
    v.maxLength(5, "At most five opt-in images."),
  ),
  messageVolume: v.picklist(tollFreeMessageVolumes, `One of: ${tollFreeMessageVolumes.join(" | ")}.`),
  contactFirstName: text(1, 100, "the first name of the person the carrier may contact."),
  contactLastName: text(1, 100, "their last name."),
  additionalInformation: v.optional(v.pipe(v.string(), v.trim(), maxChars(1000))),
});
export type TollFreeVerificationRequest = v.InferOutput<typeof TollFreeVerificationRequestSchema>;

export const TollFreeVerificationSchema = v.object({
  phoneNumberId: v.string(),
  phoneNumber: v.string(),
  useCase: v.picklist(tollFreeUseCases),
  useCaseSummary: v.string(),
  productionMessageSample: v.string(),
  optInType: v.picklist(tollFreeOptInTypes),
  optInImageUrls: v.array(v.string()),
  messageVolume: v.picklist(tollFreeMessageVolumes),
  contactFirstName: v.string(),
  contactLastName: v.string(),
  additionalInformation: v.nullable(v.string()),
  provider: v.string(),
  /** The carrier's id of the verification (Twilio `HH…`, Telnyx's request id). */
  providerVerificationId: v.string(),
  status: registrationStatus,
  /** The reviewer's reason for a rejection. */
  failureReason: v.nullable(v.string()),
  /** The carrier's error code of a rejection (Twilio's), when it gives one. */
  errorCode: v.nullable(v.string()),
  /** For a rejection: whether the carrier lets the details be corrected and submitted again (null until rejected). */
  editAllowed: v.nullable(v.boolean()),
  submittedAt: timestamp,
  decidedAt: v.nullable(timestamp),
  checkedAt: v.nullable(timestamp),
});
export type TollFreeVerification = v.InferOutput<typeof TollFreeVerificationSchema>;

/**
 * What `POST /carrier-registration/refresh` answers: the brand (null when none), campaigns and toll-free verifications
 * as the carrier now reports them.
 */
export const RegistrationOverviewSchema = v.object({
  brand: v.nullable(BrandSchema),
  campaigns: v.array(CampaignSchema),
  /** Each toll-free number's verification. */
  tollFreeVerifications: v.array(TollFreeVerificationSchema),
});
export type RegistrationOverview = v.InferOutput<typeof RegistrationOverviewSchema>;

/** Body of `PUT /phone-numbers/{phoneNumberId}/campaign`. */
export const AttachNumberSchema = v.strictObject({ campaignId: v.pipe(v.string(), v.minLength(1), v.maxLength(64)) });

/** The event recorded when the registry decides (or changes) a brand or campaign: webhook `carrier_registration.updated`. */
export type CarrierRegistrationEventType = "CarrierRegistrationUpdated";
