import { ProviderError, type WebhookRequest } from "#core/providers/port";
import type {
  BrandDetails,
  BrandReport,
  CampaignDetails,
  CampaignReport,
  RegistrationStatus,
  SubmissionReference,
  TenDlcRegistrar,
} from "#core/providers/registration";
import { twilioRequest, type Form } from "./http.ts";
import { createTwilioTollFree } from "./toll-free.ts";

/**
 * Twilio's ISV A2P 10DLC flow, one brand per organization (a secondary customer
 * profile of our account):
 *
 * 1. TrustHub (`trusthub.twilio.com/v1`): a secondary CustomerProfile with the
 *    business's information (an EndUser) assigned and submitted for review;
 *    then an A2P TrustProduct with the messaging profile information and the
 *    customer profile assigned, submitted too.
 * 2. Messaging (`messaging.twilio.com/v1`): `a2p/BrandRegistrations` from both
 *    bundles (status PENDING → APPROVED or FAILED with `failure_reason`, and
 *    `brand_score` once vetted).
 * 3. A campaign is a Messaging Service with its `Compliance/Usa2p` resource
 *    (IN_PROGRESS → VERIFIED or FAILED); a number joins the campaign by joining
 *    the service (`Services/{MG}/PhoneNumbers`). Our campaign reference is
 *    `MG…/QE…`.
 *
 * With a `baseUrl` (tests: the local fake) the hosts become `<baseUrl>/trusthub`
 * and `<baseUrl>/messaging`.
 */
export const TWILIO_POLICIES = {
  /** Secondary Customer Profile (ISV's customer). */
  customerProfile: "RNdfbf3fae0e1107f8aded0e7cead80bf5",
  /** A2P Messaging Profile (TrustProduct). */
  a2pProfile: "RNb0d4771c2c98518d916a3d4cd70a8f8b",
} as const;

/** A customer profile's name: the submission first (a retry lists profiles by this name), then the business's. */
const profileName = (details: BrandDetails, submission: SubmissionReference) =>
  `${submission} ${details.displayName}`.slice(0, 64);

/** A campaign's Messaging Service name: the submission first (a retry finds the service by it), then the use case. */
const serviceName = (submission: SubmissionReference, details: CampaignDetails) =>
  `A2P ${submission} ${details.useCase}`.slice(0, 64);

/** The items of a Twilio list answer, under its resource's key (`results`, `data`, `services`, `compliance`). */
function listed(page: Record<string, unknown>, key: string): Record<string, unknown>[] {
  const items = page[key];
  return Array.isArray(items) ? (items as Record<string, unknown>[]) : [];
}

const COMPANY_TYPES: Record<BrandDetails["entityType"], string> = {
  PRIVATE_PROFIT: "private",
  PUBLIC_PROFIT: "public",
  NON_PROFIT: "non-profit",
  GOVERNMENT: "government",
};

export function createTwilioRegistrar(options: {
  baseUrl: string | undefined;
  authorization: string | undefined;
  fetch: typeof fetch;
}): TenDlcRegistrar {
  const trusthub = options.baseUrl ? `${options.baseUrl}/trusthub` : "https://trusthub.twilio.com";
  const messaging = options.baseUrl ? `${options.baseUrl}/messaging` : "https://messaging.twilio.com";
  const call = (url: string, form?: Form) =>
    twilioRequest({
      url,
      authorization: options.authorization,
      label: url.replace(/^https?:\/\/[^/]+/, ""),
      ...(form ? { form } : {}),
      fetch: options.fetch,
    });
  const sidOf = (resource: Record<string, unknown>, what: string): string => {
    const sid = resource["sid"];
    if (typeof sid !== "string" || !sid)
      throw new ProviderError("transient", "malformed_response", `Twilio answered the ${what} request without a sid`, {
        ambiguous: true,
      });
    return sid;
  };

  /** A TrustHub bundle (CustomerProfiles or TrustProducts) with its entities assigned, submitted for review. */
  async function submittedBundle(
    kind: "CustomerProfiles" | "TrustProducts",
    form: Form,
    entitySids: string[],
  ): Promise<string> {
    const bundle = sidOf(await call(`${trusthub}/v1/${kind}`, form), kind);
    for (const objectSid of entitySids)
      await call(`${trusthub}/v1/${kind}/${bundle}/EntityAssignments`, [["ObjectSid", objectSid]]);
    await call(`${trusthub}/v1/${kind}/${bundle}`, [["Status", "pending-review"]]);
    return bundle;
  }

  async function endUser(type: string, friendlyName: string, attributes: Record<string, string>): Promise<string> {
    return sidOf(
      await call(`${trusthub}/v1/EndUsers`, [
        ["FriendlyName", friendlyName],
        ["Type", type],
        ["Attributes", JSON.stringify(attributes)],
      ]),
      "EndUsers",
    );
  }

  function brandReport(brand: Record<string, unknown>): BrandReport {
    const status = brandStatus(String(brand["status"] ?? ""));
    const score = brand["brand_score"];
    return {
      reference: sidOf(brand, "BrandRegistrations"),
      status,
      ...(status === "Rejected" && brand["failure_reason"] ? { failureReason: String(brand["failure_reason"]) } : {}),
      ...(typeof score === "number" ? { vettingScore: score } : {}),
    };
  }

  function campaignReport(service: string, campaign: Record<string, unknown>): CampaignReport {
    const status = campaignStatus(String(campaign["campaign_status"] ?? ""));
    const errors = (campaign["errors"] as { description?: string }[] | undefined) ?? [];
    const reason = errors
      .map((error) => error.description)
      .filter(Boolean)
      .join("; ");
    return {
      reference: `${service}/${sidOf(campaign, "Usa2p")}`,
      status,
      ...(status === "Rejected" && reason ? { failureReason: reason } : {}),
    };
  }

  /** The Messaging Service an earlier attempt of this submission created. */
  async function serviceOf(submission: SubmissionReference): Promise<string | undefined> {
    const services = listed(await call(`${messaging}/v1/Services?PageSize=1000`), "services");
    const service = services.find((candidate) =>
      String(candidate["friendly_name"] ?? "").startsWith(`A2P ${submission}`),
    );
    return service ? sidOf(service, "Services") : undefined;
  }

  const parts = (reference: string) => {
    const [service, campaign] = reference.split("/");
    return { service: encodeURIComponent(service ?? ""), campaign: encodeURIComponent(campaign ?? "") };
  };

  return {
    ...createTwilioTollFree(messaging, call),
    async registerBrand(details: BrandDetails, submission: SubmissionReference): Promise<BrandReport> {
      const business = await endUser(
        "customer_profile_business_information",
        `${details.displayName} business information`,
        {
          business_name: details.legalName,
          business_identity: "direct_customer",
          business_type: details.entityType === "NON_PROFIT" ? "Non-profit Corporation" : "Corporation",
          business_industry: details.vertical,
          business_registration_identifier: "EIN",
          business_registration_number: details.ein,
          business_regions_of_operation: "USA_AND_CANADA",
          website_url: details.website,
        },
      );
      const customerProfile = await submittedBundle(
        "CustomerProfiles",
        [
          ["FriendlyName", profileName(details, submission)],
          ["Email", details.email],
          ["PolicySid", TWILIO_POLICIES.customerProfile],
        ],
        [business],
      );
      const a2p = await endUser("us_a2p_messaging_profile_information", `${details.displayName} A2P profile`, {
        company_type: COMPANY_TYPES[details.entityType],
      });
      const a2pProfile = await submittedBundle(
        "TrustProducts",
        [
          ["FriendlyName", `${details.displayName} A2P`],
          ["Email", details.email],
          ["PolicySid", TWILIO_POLICIES.a2pProfile],
        ],
        [a2p, customerProfile],
      );
      return brandReport(
        await call(`${messaging}/v1/a2p/BrandRegistrations`, [
          ["CustomerProfileBundleSid", customerProfile],
          ["A2PProfileBundleSid", a2pProfile],
        ]),
      );
    },
    async findBrand(details: BrandDetails, submission: SubmissionReference): Promise<BrandReport | undefined> {
      // The customer profile carries the submission in its name; a brand registration names its customer profile.
      const profiles = listed(
        await call(
          `${trusthub}/v1/CustomerProfiles?${new URLSearchParams({ FriendlyName: profileName(details, submission), PageSize: "50" }).toString()}`,
        ),
        "results",
      ).map((profile) => profile["sid"]);
      if (profiles.length === 0) return undefined;
      const brands = listed(await call(`${messaging}/v1/a2p/BrandRegistrations?PageSize=1000`), "data");
      const brand = brands.find((candidate) => profiles.includes(candidate["customer_profile_bundle_sid"]));
      return brand ? brandReport(brand) : undefined;
    },
    parseStatusCallback(request: WebhookRequest): string[] {
      // An Event Streams webhook sink posts CloudEvents, a JSON array (one event when sent alone).
      let parsed: unknown;
      try {
        parsed = JSON.parse(request.body);
      } catch {
        return [];
      }
      const events = (Array.isArray(parsed) ? parsed : [parsed]) as { type?: string; data?: Record<string, unknown> }[];
      return events.flatMap((event) => {
        const type = event?.type ?? "";
        const named = type.startsWith("com.twilio.messaging.compliance.brand-registration.")
          ? event.data?.["brandsid"]
          : type.startsWith("com.twilio.messaging.compliance.campaign-registration.")
            ? event.data?.["messagingservicesid"]
            : undefined;
        return typeof named === "string" && named ? [named] : [];
      });
    },
    async fetchBrand(reference: string): Promise<BrandReport> {
      return brandReport(await call(`${messaging}/v1/a2p/BrandRegistrations/${encodeURIComponent(reference)}`));
    },
    async registerCampaign(
      brandReference: string,
      details: CampaignDetails,
      submission: SubmissionReference,
    ): Promise<CampaignReport> {
      const service = sidOf(
        await call(`${messaging}/v1/Services`, [["FriendlyName", serviceName(submission, details)]]),
        "Services",
      );
      const campaign = await call(`${messaging}/v1/Services/${service}/Compliance/Usa2p`, [
        ["BrandRegistrationSid", brandReference],
        ["Description", details.description],
        ["MessageFlow", details.messageFlow],
        ...details.sampleMessages.map((sample): [string, string] => ["MessageSamples", sample]),
        ["UsAppToPersonUsecase", details.useCase],
        ["HasEmbeddedLinks", String(details.hasEmbeddedLinks)],
        ["HasEmbeddedPhone", String(details.hasEmbeddedPhone)],
        ["OptOutMessage", details.optOutMessage],
        ["HelpMessage", details.helpMessage],
      ]);
      return campaignReport(service, campaign);
    },
    async findCampaign(
      _brandReference: string,
      _details: CampaignDetails,
      submission: SubmissionReference,
    ): Promise<CampaignReport | undefined> {
      // The Messaging Service carries the submission in its name; its Usa2p campaign, if the first attempt made one
      // (a service left without one is an empty, unbilled service: the retry creates a new one with its campaign).
      const service = await serviceOf(submission);
      if (!service) return undefined;
      const [campaign] = listed(await call(`${messaging}/v1/Services/${service}/Compliance/Usa2p`), "compliance");
      return campaign ? campaignReport(service, campaign) : undefined;
    },
    async fetchCampaign(reference: string): Promise<CampaignReport> {
      const { service, campaign } = parts(reference);
      return campaignReport(
        decodeURIComponent(service),
        await call(`${messaging}/v1/Services/${service}/Compliance/Usa2p/${campaign}`),
      );
    },
    async assignNumber(campaignReference: string, number): Promise<void> {
      if (!number.providerNumberId)
        throw new ProviderError(
          "permanent",
          "number_not_at_twilio",
          `${number.phoneNumber} has no Twilio phone number sid; register it through POST /phone-numbers first.`,
        );
      await call(`${messaging}/v1/Services/${parts(campaignReference).service}/PhoneNumbers`, [
        ["PhoneNumberSid", number.providerNumberId],
      ]);
    },
  };
}

function brandStatus(status: string): RegistrationStatus {
  if (status === "APPROVED") return "Approved";
  if (status === "FAILED" || status === "DELETED") return "Rejected";
  return "Pending";
}

function campaignStatus(status: string): RegistrationStatus {
  if (status === "VERIFIED") return "Approved";
  if (status === "FAILED") return "Rejected";
  return "Pending";
}
