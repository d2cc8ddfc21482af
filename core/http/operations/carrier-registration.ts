import * as v from "valibot";
import { routedBy } from "#core/http/operation";
import { carrierRegistrationRoutes } from "#stacks/definitions";
import {
  AttachNumberSchema,
  BrandRequestSchema,
  BrandSchema,
  CampaignRequestSchema,
  CampaignSchema,
  CampaignsSchema,
  RegistrationOverviewSchema,
  TollFreeVerificationRequestSchema,
  TollFreeVerificationSchema,
} from "#core/carrier-registration/schemas";
import { NumberHealthSchema } from "#core/messaging/number-health";
import { PhoneNumberSchema } from "#core/messaging/phone-number-schema";

const defineOperation = routedBy(carrierRegistrationRoutes);

const idParam = v.pipe(v.string(), v.minLength(1), v.maxLength(64));
const tag = "Carrier registration";
// Calls in an operation's arguments are marked pure: the bundler would otherwise keep them as effects where the
// operation is unused, and with them every schema beside them.

export const registerBrand = /* @__PURE__ */ defineOperation({
  operationId: "registerBrand",
  summary: "Register the organization's 10DLC brand at its carrier",
  description:
    "Submits the business to The Campaign Registry through the organization's carrier (its messaging settings' provider): Twilio " +
    "(TrustHub customer profile and A2P profile, then an A2P brand registration) or Telnyx (10DLC brand). The brand starts " +
    "`Pending`; `POST /carrier-registration/refresh` (and a schedule every 15 minutes) reads the decision: `Approved` with the " +
    "vetting score, or `Rejected` with the reason. The registry bills each submission, so a brand is submitted again only after a " +
    "rejection (409 otherwise). 422 when the carrier refuses the details (its reason in `detail`); 502 when it fails: nothing stored.",
  tag,
  auth: "bearer",
  permission: "phoneNumbers:write",
  body: BrandRequestSchema,
  success: { status: 201, description: "The submitted brand", schema: BrandSchema },
  // The registry bills each submission: a retried request with the same Idempotency-Key is answered, not submitted again.
  idempotent: true,
  problems: [400, 401, 403, 409, 413, 415, 422, 429, 502],
  example: {
    entityType: "PRIVATE_PROFIT",
    legalName: "Acme Roofing LLC",
    displayName: "Acme Roofing",
    ein: "12-3456789",
    phone: "+12125550100",
    email: "compliance@acme-roofing.example",
    website: "https://acme-roofing.example",
    street: "1 Main St",
    city: "New York",
    state: "NY",
    postalCode: "10001",
    vertical: "CONSTRUCTION",
  },
});

export const getBrand = /* @__PURE__ */ defineOperation({
  operationId: "getBrand",
  summary: "Read the organization's 10DLC brand and its status",
  tag,
  auth: "bearer",
  permission: "phoneNumbers:read",
  success: { status: 200, description: "The brand", schema: BrandSchema },
  problems: [401, 403, 404, 429],
});

export const registerCampaign = /* @__PURE__ */ defineOperation({
  operationId: "registerCampaign",
  summary: "Register a 10DLC campaign of the organization's approved brand",
  description:
    "What the business sends (use case, description, 2-5 sample messages), how people opt in (`messageFlow`), and its HELP and STOP " +
    "answers. Twilio: a Messaging Service with its A2P campaign (Usa2p); Telnyx: the campaign builder. It starts `Pending`; the " +
    "carriers' decision is read like the brand's. 409 until the brand is Approved; 422 when the carrier refuses the details; 502 when it fails.",
  tag,
  auth: "bearer",
  permission: "phoneNumbers:write",
  body: CampaignRequestSchema,
  success: { status: 201, description: "The submitted campaign", schema: CampaignSchema },
  idempotent: true,
  problems: [400, 401, 403, 409, 413, 415, 422, 429, 502],
  example: {
    useCase: "CUSTOMER_CARE",
    description: "Replies to homeowners who asked Acme Roofing for a quote through our website form.",
    sampleMessages: [
      "Hi Sam, this is Acme Roofing about your quote request. When can we visit? Reply STOP to opt out.",
      "Acme Roofing: your inspection is booked for Tuesday 10am. Reply STOP to opt out.",
    ],
    messageFlow:
      "Homeowners fill in the quote form at https://acme-roofing.example/quote and tick a box agreeing to texts about their request.",
    helpMessage: "Acme Roofing: call 212-555-0100 or email help@acme-roofing.example. Reply STOP to opt out.",
    optOutMessage: "Acme Roofing: you are unsubscribed and will receive no further messages.",
  },
});

export const listCampaigns = /* @__PURE__ */ defineOperation({
  operationId: "listCampaigns",
  summary: "List the organization's 10DLC campaigns, their status and numbers",
  tag,
  auth: "bearer",
  permission: "phoneNumbers:read",
  success: { status: 200, description: "The campaigns", schema: CampaignsSchema },
  problems: [401, 403, 429],
});

export const getCampaign = /* @__PURE__ */ defineOperation({
  operationId: "getCampaign",
  summary: "Read one 10DLC campaign",
  tag,
  auth: "bearer",
  permission: "phoneNumbers:read",
  params: /* @__PURE__ */ v.object({ campaignId: idParam }),
  success: { status: 200, description: "The campaign", schema: CampaignSchema },
  problems: [401, 403, 404, 429],
});

export const refreshCarrierRegistration = /* @__PURE__ */ defineOperation({
  operationId: "refreshCarrierRegistration",
  summary: "Ask the carrier now for the decision on every pending brand, campaign and toll-free verification",
  description:
    "The schedule does the same every 15 minutes. A decided campaign's status is copied onto its numbers, a toll-free " +
    "verification's onto its number (what gates their sends). " +
    "502 when the carrier fails: the next refresh asks again.",
  tag,
  auth: "bearer",
  permission: "phoneNumbers:write",
  success: {
    status: 200,
    description: "The brand (null when none), campaigns and toll-free verifications, as now known",
    schema: RegistrationOverviewSchema,
  },
  problems: [401, 403, 429, 502],
});

export const attachPhoneNumberToCampaign = /* @__PURE__ */ defineOperation({
  operationId: "attachPhoneNumberToCampaign",
  summary: "Attach a phone number to an approved 10DLC campaign",
  description:
    "Assigns the number to the campaign at the carrier (Twilio: the campaign's Messaging Service; Telnyx: phone number campaign), " +
    "moving it off its previous campaign. Where sends need registration, only a number on an Approved campaign sends SMS. " +
    "409 while the campaign is not Approved; 422 when the number is held at another carrier than the campaign's, or is toll-free " +
    "(verified instead: `POST /phone-numbers/{phoneNumberId}/toll-free-verification`); 502 when the carrier fails.",
  tag,
  auth: "bearer",
  permission: "phoneNumbers:write",
  params: /* @__PURE__ */ v.object({ phoneNumberId: idParam }),
  body: AttachNumberSchema,
  success: { status: 200, description: "The number with its campaign", schema: PhoneNumberSchema },
  problems: [400, 401, 403, 404, 409, 413, 415, 422, 429, 502],
  example: { campaignId: "01J9Z8X7W6V5T4S3R2Q1P0N9M8" },
});

export const submitTollFreeVerification = /* @__PURE__ */ defineOperation({
  operationId: "submitTollFreeVerification",
  summary: "Submit a toll-free number's verification at its carrier",
  description:
    "Carriers carry texts from a toll-free number (800, 833, 844, 855, 866, 877, 888) once the toll-free reviewers verified the " +
    "business and its use; a 10DLC campaign does not apply to it. The business is the organization's brand (its legal name, EIN, " +
    "address, website, email and phone: register the brand first); the body says what the number sends and how people opt in. " +
    "Twilio: `Tollfree/Verifications`; Telnyx: `messaging_tollfree/verification/requests`. It starts `Pending`; " +
    "`POST /carrier-registration/refresh` (and the 15-minute schedule) reads the decision: `Approved`, or `Rejected` with the " +
    "reviewers' reason and whether the carrier lets it be corrected (`editAllowed`). The decision is copied onto the number's " +
    "`registration` (kind `TollFreeVerification`): where sends need registration, the number sends once it is Approved. " +
    "Submitted again only after a rejection (409 otherwise, and 409 without a brand or with a rejected one); 422 for a number " +
    "that is not toll-free, one held at another carrier than the brand's, or details the carrier refuses; 502 when the carrier fails.",
  tag,
  auth: "bearer",
  permission: "phoneNumbers:write",
  params: /* @__PURE__ */ v.object({ phoneNumberId: idParam }),
  body: TollFreeVerificationRequestSchema,
  success: { status: 201, description: "The submitted verification", schema: TollFreeVerificationSchema },
  // Each submission is reviewed by people at the carrier: a retried request with the same Idempotency-Key is answered, not submitted again.
  idempotent: true,
  problems: [400, 401, 403, 404, 409, 413, 415, 422, 429, 502],
  example: {
    useCase: "CUSTOMER_CARE",
    useCaseSummary:
      "Acme Roofing texts homeowners who asked for a quote on its website about their visit and estimate.",
    productionMessageSample: "Acme Roofing: your inspection is booked for Tuesday 10am. Reply STOP to opt out.",
    optInType: "WEB_FORM",
    optInImageUrls: ["https://acme-roofing.example/quote-form.png"],
    messageVolume: "1,000",
    contactFirstName: "Dana",
    contactLastName: "Reyes",
  },
});

export const getTollFreeVerification = /* @__PURE__ */ defineOperation({
  operationId: "getTollFreeVerification",
  summary: "Read a toll-free number's verification and its status",
  tag,
  auth: "bearer",
  permission: "phoneNumbers:read",
  params: /* @__PURE__ */ v.object({ phoneNumberId: idParam }),
  success: { status: 200, description: "The verification", schema: TollFreeVerificationSchema },
  problems: [401, 403, 404, 429],
});

export const getPhoneNumberHealth = /* @__PURE__ */ defineOperation({
  operationId: "getPhoneNumberHealth",
  summary: "Read a number's delivery health over the last 24 hours",
  description:
    "From its delivery receipts: final outcomes, delivery rate, the carrier errors 30007 (filtered), 30034 (unregistered), 30003 " +
    "(unreachable) and 21610 (unsubscribed), and its opt-outs (STOP in its conversations) and opt-out rate. A spike of filtering " +
    "(at least 5 messages filtered in 30 minutes, 20% or more of that window's outcomes) pauses the number: `status` Paused with the " +
    "reason, a `phone_number.paused` webhook, and an analytics needsAttention item until the owner resumes it.",
  tag: "Phone numbers",
  auth: "bearer",
  permission: "phoneNumbers:read",
  params: /* @__PURE__ */ v.object({ phoneNumberId: idParam }),
  success: { status: 200, description: "The number's health", schema: NumberHealthSchema },
  problems: [401, 403, 404, 429],
});

export const resumePhoneNumber = /* @__PURE__ */ defineOperation({
  operationId: "resumePhoneNumber",
  summary: "Resume a number paused for carrier filtering",
  description:
    "Puts the number back among the senders (recorded as a PhoneNumberResumed event). 409 when it is not paused.",
  tag: "Phone numbers",
  auth: "bearer",
  permission: "phoneNumbers:write",
  params: /* @__PURE__ */ v.object({ phoneNumberId: idParam }),
  success: { status: 200, description: "The number, unpaused", schema: PhoneNumberSchema },
  problems: [401, 403, 404, 409, 429],
});
